// Tokens of the Compute language and the lexer that produces them (internal).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace atl::compute::detail {

enum class Tok {
  Ident, Number, LParen, RParen, Comma, Colon, Semicolon, Newline, End,
  Plus, Minus, Star, Slash, Percent, Lt, Le, Gt, Ge, EqEq, Ne, AndAnd, OrOr, Bang, Question,
  Assign, PlusAssign, StarAssign,
};

struct Token {
  Tok kind = Tok::End;
  std::string text;  ///< spelling as written
  double number = 0; ///< Number
  int line = 1, column = 1;
  std::size_t offset = 0;  ///< byte offset in the source
};

/// Human-readable token description for messages: "')'", "identifier 'x'", "end of line".
std::string describe(const Token &t);

/// Splits `text` into tokens. `#` starts a comment to the end of the line;
/// newlines inside parentheses are skipped. Ends with one Tok::End. Throws
/// UserError with line/column on a character that starts no token.
std::vector<Token> lex(std::string_view text);

}  // namespace atl::compute::detail
