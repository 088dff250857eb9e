// Reads and writes NumPy .npy tensors.
#include "src/runtime/npy.h"

#include <atoll/diagnostics.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
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

Tensor read_npy(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UserError("cannot read '" + path + "'");
  std::stringstream ss;
  ss << f.rdbuf();
  std::string buf = ss.str();
  auto bad = [&](const std::string &why) { return UserError("'" + path + "' is not a .npy file Atoll reads: " + why); };
  if (buf.size() < 10 || buf.compare(0, 6, "\x93NUMPY") != 0) throw bad("missing the \\x93NUMPY magic");
  int major = static_cast<unsigned char>(buf[6]);
  std::size_t hlen, hstart;
  if (major == 1) {
    hlen = take<std::uint16_t>(buf.data() + 8);
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (buf.size() < 12) throw bad("truncated header");
    hlen = take<std::uint32_t>(buf.data() + 8);
    hstart = 12;
  } else {
    throw bad("unknown format version " + std::to_string(major));
  }
  if (hstart + hlen > buf.size()) throw bad("truncated header");
  std::string header = buf.substr(hstart, hlen);
  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([<>|=])([a-z])(\d+)')")))
    throw bad("no descr in header");
  char order = m[1].str()[0];
  char kind = m[2].str()[0];
  int size = std::stoi(m[3]);
  if (order == '>' && size > 1) throw bad("big-endian data");
  if (std::regex_search(header, std::regex(R"('fortran_order'\s*:\s*True)"))) throw bad("Fortran order");
  if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(([^)]*)\))"))) throw bad("no shape in header");
  Shape shape;
  std::string dims = m[1];
  std::regex num(R"(\d+)");
  for (auto it = std::sregex_iterator(dims.begin(), dims.end(), num); it != std::sregex_iterator(); ++it)
    shape.push_back(std::stoll(it->str()));
  DType dtype;
  if (kind == 'f' && size == 4) dtype = DType::F32;
  else if (kind == 'f' && size == 2) dtype = DType::F16;
  else if (kind == 'f' && size == 8) dtype = DType::F32;
  else if (kind == 'i' && size == 1) dtype = DType::I8;
  else if (kind == 'i' && size == 4) dtype = DType::I32;
  else if (kind == 'i' && size == 8) dtype = DType::I64;
  else if ((kind == 'b' || kind == 'u') && size == 1) dtype = kind == 'b' ? DType::Bool : DType::I32;
  else throw bad(std::string("unsupported element type ") + kind + std::to_string(size));
  Tensor t(dtype, shape);
  std::size_t need = static_cast<std::size_t>(t.numel()) * static_cast<std::size_t>(size);
  const char *p = buf.data() + hstart + hlen;
  if (buf.size() - hstart - hlen < need) throw bad("data is shorter than the shape says");
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

}  // namespace atl
