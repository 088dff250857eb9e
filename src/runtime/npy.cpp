// Reads and writes NumPy .npy tensors.
#include "src/runtime/npy.h"

#include <atoll/diagnostics.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <regex>
#include <sstream>

namespace atl {

namespace {

const char *npy_descr(DType t) {
  switch (t) {
  case DType::F32: return "<f4";
  case DType::F16: return "<f2";
  case DType::BF16: return "<f4";
  case DType::I8: return "|i1";
  case DType::I32: return "<i4";
  case DType::I64: return "<i8";
  case DType::Bool: return "|b1";
  case DType::U8: return "|u1";
  case DType::F64: return "<f8";
  }
  return "<f4";
}

template <typename T>
void put(std::string &out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

template <typename T>
T take(const char *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

}  // namespace

void write_npy(const std::string &path, const Tensor &t) {
  std::string shape = "(";
  for (std::size_t i = 0; i < t.shape.size(); ++i) shape += std::to_string(t.shape[i]) + (t.shape.size() == 1 ? "," : i + 1 < t.shape.size() ? ", " : "");
  shape += ")";
  std::string header = std::string("{'descr': '") + npy_descr(t.dtype) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  std::size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  put<std::uint16_t>(out, static_cast<std::uint16_t>(header.size()));
  out += header;
  out.reserve(out.size() + t.data.size() * 8);
  for (double v : t.data) {
    switch (t.dtype) {
    case DType::F32:
    case DType::BF16: put<float>(out, static_cast<float>(v)); break;
    case DType::F16: put<std::uint16_t>(out, float_to_half(static_cast<float>(v))); break;
    case DType::I8: put<std::int8_t>(out, static_cast<std::int8_t>(v)); break;
    case DType::I32: put<std::int32_t>(out, static_cast<std::int32_t>(v)); break;
    case DType::I64: put<std::int64_t>(out, static_cast<std::int64_t>(v)); break;
    case DType::Bool: put<std::uint8_t>(out, v != 0 ? 1 : 0); break;
    case DType::U8: put<std::uint8_t>(out, static_cast<std::uint8_t>(v)); break;
    case DType::F64: put<double>(out, v); break;
    }
  }
  std::filesystem::path p(path);
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!f) throw UserError("cannot write '" + path + "'");
  }
  std::filesystem::rename(tmp, path);
}

namespace {

/// The header dictionary of a .npy file: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
/// parsed strictly (each key once, nothing else; a trailing comma and spaces allowed).
struct NpyHeader {
  std::string descr;
  bool fortran = false;
  Shape shape;
};

class HeaderParser {
public:
  HeaderParser(const std::string &text, const std::function<UserError(const std::string &)> &bad) : s_(text), bad_(bad) {}

  NpyHeader parse() {
    NpyHeader h;
    bool descr = false, fortran = false, shape = false;
    expect('{');
    while (!peek('}')) {
      std::string key = quoted();
      expect(':');
      if (key == "descr" && !descr) h.descr = quoted(), descr = true;
      else if (key == "fortran_order" && !fortran) h.fortran = boolean(), fortran = true;
      else if (key == "shape" && !shape) h.shape = tuple(), shape = true;
      else throw bad_("unexpected or repeated key '" + key + "' in the header");
      if (!peek('}')) expect(',');
    }
    expect('}');
    skip();
    if (i_ != s_.size()) throw bad_("text after the header dictionary");
    if (!descr || !fortran || !shape) throw bad_("the header lacks 'descr', 'fortran_order' or 'shape'");
    return h;
  }

private:
  void skip() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n')) ++i_;
  }
  bool peek(char c) {
    skip();
    return i_ < s_.size() && s_[i_] == c;
  }
  void expect(char c) {
    if (!peek(c)) throw bad_(std::string("malformed header: expected '") + c + "' at offset " + std::to_string(i_));
    ++i_;
  }
  std::string quoted() {
    skip();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) throw bad_("malformed header: expected a quoted string");
    char q = s_[i_++];
    std::size_t end = s_.find(q, i_);
    if (end == std::string::npos) throw bad_("malformed header: unterminated string");
    std::string v = s_.substr(i_, end - i_);
    i_ = end + 1;
    return v;
  }
  bool boolean() {
    skip();
    for (const char *w : {"True", "False"})
      if (s_.compare(i_, std::strlen(w), w) == 0) {
        i_ += std::strlen(w);
        return w[0] == 'T';
      }
    throw bad_("malformed header: 'fortran_order' is not True or False");
  }
  Shape tuple() {
    Shape shape;
    expect('(');
    while (!peek(')')) {
      std::size_t b = i_;
      std::int64_t v = 0;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
        if (v > (std::int64_t{1} << 50)) throw bad_("a dimension of the shape is too large");
        v = v * 10 + (s_[i_++] - '0');
      }
      if (i_ == b) throw bad_("malformed header: the shape is not a tuple of non-negative integers");
      shape.push_back(v);
      if (!peek(')')) expect(',');
    }
    expect(')');
    return shape;
  }

  const std::string &s_;
  const std::function<UserError(const std::string &)> &bad_;
  std::size_t i_ = 0;
};

}  // namespace

Tensor read_npy(const std::string &path, std::string *descr_out) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw UserError("cannot read '" + path + "': it is a directory");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError("cannot read '" + path + "'");
  std::stringstream ss;
  ss << f.rdbuf();
  std::string buf = ss.str();
  std::function<UserError(const std::string &)> bad = [&](const std::string &why) {
    return UserError("'" + path + "' is not a .npy file Atoll reads: " + why);
  };
  if (buf.size() < 10 || buf.compare(0, 6, "\x93NUMPY") != 0) throw bad("missing the \\x93NUMPY magic");
  int major = static_cast<unsigned char>(buf[6]), minor = static_cast<unsigned char>(buf[7]);
  if (major != 1 || minor != 0)
    throw bad("format version " + std::to_string(major) + "." + std::to_string(minor) + " (cli.md: version 1.0)");
  std::size_t hlen = take<std::uint16_t>(buf.data() + 8), hstart = 10;
  if (hstart + hlen > buf.size()) throw bad("truncated header");
  std::string header = buf.substr(hstart, hlen);
  if (header.empty() || header.back() != '\n') throw bad("the header does not end with a newline (wrong header length?)");
  NpyHeader h = HeaderParser(header, bad).parse();
  std::smatch m;
  if (!std::regex_match(h.descr, m, std::regex(R"(([<>|=])([a-z])(\d+))"))) throw bad("descr '" + h.descr + "'");
  char order = m[1].str()[0];
  char kind = m[2].str()[0];
  int size = std::stoi(m[3]);
  if (order == '>' && size > 1) throw bad("big-endian data");
  if (h.fortran) throw bad("Fortran order");
  DType dtype;
  if (kind == 'f' && size == 4) dtype = DType::F32;
  else if (kind == 'f' && size == 2) dtype = DType::F16;
  else if (kind == 'f' && size == 8) dtype = DType::F64;
  else if (kind == 'u' && size == 1) dtype = DType::U8;
  else if (kind == 'i' && size == 1) dtype = DType::I8;
  else if (kind == 'i' && size == 4) dtype = DType::I32;
  else if (kind == 'i' && size == 8) dtype = DType::I64;
  else if (kind == 'b' && size == 1) dtype = DType::Bool;
  else throw bad(std::string("unsupported element type ") + kind + std::to_string(size));
  // The data's size, checked before anything is allocated.
  std::size_t numel = 1;
  for (std::int64_t d : h.shape) {
    if (d != 0 && numel > (std::size_t{1} << 40) / static_cast<std::size_t>(d)) throw bad("the shape holds too many elements");
    numel *= static_cast<std::size_t>(d);
  }
  std::size_t need = numel * static_cast<std::size_t>(size), have = buf.size() - hstart - hlen;
  if (have < need) throw bad("data is shorter than the shape says");
  if (have > need) throw bad("data is longer than the shape says");
  if (descr_out) *descr_out = (size == 1 ? "|" : "<") + std::string(1, kind) + std::to_string(size);
  Tensor t(dtype, h.shape);
  const char *p = buf.data() + hstart + hlen;
  for (std::int64_t i = 0; i < t.numel(); ++i, p += size) {
    double v = 0;
    if (kind == 'f' && size == 4) v = take<float>(p);
    else if (kind == 'f' && size == 2) v = half_to_float(take<std::uint16_t>(p));
    else if (kind == 'f' && size == 8) v = take<double>(p);
    else if (kind == 'i' && size == 1) v = take<std::int8_t>(p);
    else if (kind == 'i' && size == 4) v = take<std::int32_t>(p);
    else if (kind == 'i' && size == 8) v = static_cast<double>(take<std::int64_t>(p));
    else v = take<std::uint8_t>(p);
    t.set(i, v);
  }
  return t;
}

const char *npy_type(DType t) { return npy_descr(t); }

std::string npy_file_name(const std::string &name) {
  static const char *hex = "0123456789ABCDEF";
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(name[i]);
    bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                 (c == '.' && i > 0);
    if (plain) out += static_cast<char>(c);
    else out += std::string("%") + hex[c >> 4] + hex[c & 15];
  }
  return out.empty() ? "%" : out;
}

}  // namespace atl
