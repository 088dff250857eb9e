// Lexer of the Compute language: characters to tokens with line/column.
#include "graph/compute/lexer.h"

#include <atoll/diagnostics.h>

#include <cctype>
#include <cstdlib>

namespace atl::compute::detail {

std::string describe(const Token &t) {
  switch (t.kind) {
  case Tok::Ident: return "identifier '" + t.text + "'";
  case Tok::Number: return "number '" + t.text + "'";
  case Tok::Newline: return "end of line";
  case Tok::End: return "end of input";
  default: return "'" + t.text + "'";
  }
}

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

struct Lexer {
  std::string_view src;
  std::size_t pos = 0;
  int line = 1, col = 1;
  int depth = 0;  // parenthesis depth
  std::vector<Token> out;

  char peek(std::size_t k = 0) const { return pos + k < src.size() ? src[pos + k] : '\0'; }

  void advance(std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) {
      if (src[pos] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
      ++pos;
    }
  }

  void emit(Tok kind, std::size_t len) {
    Token t;
    t.kind = kind;
    t.text = std::string(src.substr(pos, len));
    t.line = line;
    t.column = col;
    t.offset = pos;
    if (kind == Tok::LParen) ++depth;
    if (kind == Tok::RParen && depth > 0) --depth;
    out.push_back(std::move(t));
    advance(len);
  }

  void number() {
    std::size_t len = 0;
    while (digit(peek(len))) ++len;
    if (peek(len) == '.') {
      ++len;
      while (digit(peek(len))) ++len;
    }
    if (peek(len) == 'e' || peek(len) == 'E') {
      std::size_t k = len + 1;
      if (peek(k) == '+' || peek(k) == '-') ++k;
      if (digit(peek(k))) {
        while (digit(peek(k))) ++k;
        len = k;
      }
    }
    if (ident_char(peek(len))) {
      Location loc;
      loc.line = line;
      loc.column = col;
      throw UserError("malformed number '" + std::string(src.substr(pos, len + 1)) + "'", loc);
    }
    std::string text(src.substr(pos, len));
    emit(Tok::Number, len);
    out.back().number = std::strtod(text.c_str(), nullptr);
  }

  void run() {
    while (pos < src.size()) {
      char c = peek();
      if (c == '#') {
        while (pos < src.size() && peek() != '\n') advance(1);
      } else if (c == '\n') {
        if (depth == 0) emit(Tok::Newline, 1);
        else advance(1);
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        advance(1);
      } else if (ident_start(c)) {
        std::size_t len = 1;
        while (ident_char(peek(len))) ++len;
        emit(Tok::Ident, len);
      } else if (digit(c) || (c == '.' && digit(peek(1)))) {
        number();
      } else {
        char d = peek(1);
        switch (c) {
        case '(': emit(Tok::LParen, 1); break;
        case ')': emit(Tok::RParen, 1); break;
        case ',': emit(Tok::Comma, 1); break;
        case ':': emit(Tok::Colon, 1); break;
        case ';': emit(Tok::Semicolon, 1); break;
        case '?': emit(Tok::Question, 1); break;
        case '-': emit(Tok::Minus, 1); break;
        case '/': emit(Tok::Slash, 1); break;
        case '%': emit(Tok::Percent, 1); break;
        case '+': d == '=' ? emit(Tok::PlusAssign, 2) : emit(Tok::Plus, 1); break;
        case '*': d == '=' ? emit(Tok::StarAssign, 2) : emit(Tok::Star, 1); break;
        case '<': d == '=' ? emit(Tok::Le, 2) : emit(Tok::Lt, 1); break;
        case '>': d == '=' ? emit(Tok::Ge, 2) : emit(Tok::Gt, 1); break;
        case '=': d == '=' ? emit(Tok::EqEq, 2) : emit(Tok::Assign, 1); break;
        case '!': d == '=' ? emit(Tok::Ne, 2) : emit(Tok::Bang, 1); break;
        case '&':
          if (d == '&') {
            emit(Tok::AndAnd, 2);
            break;
          }
          [[fallthrough]];
        case '|':
          if (c == '|' && d == '|') {
            emit(Tok::OrOr, 2);
            break;
          }
          [[fallthrough]];
        default: {
          Location loc;
          loc.line = line;
          loc.column = col;
          // The whole UTF-8 sequence of a non-ASCII character ("unexpected character '×'").
          std::size_t n = 1;
          while ((static_cast<unsigned char>(c) & 0xc0) == 0xc0 && n < 4 && pos + n < src.size() &&
                 (static_cast<unsigned char>(src[pos + n]) & 0xc0) == 0x80)
            ++n;
          throw UserError("unexpected character '" + std::string(src.substr(pos, n)) + "'", loc);
        }
        }
      }
    }
    Token end;
    end.kind = Tok::End;
    end.line = line;
    end.column = col;
    end.offset = pos;
    out.push_back(end);
  }
};

}  // namespace

std::vector<Token> lex(std::string_view text) {
  Lexer lx;
  lx.src = text;
  lx.run();
  return std::move(lx.out);
}

}  // namespace atl::compute::detail
