//===- Npy.cpp - NumPy .npy arrays for tessera-run ------------------------===//
//
// The format (numpy.lib.format): the magic "\x93NUMPY", a major and minor
// version byte, the header's length (2 bytes little endian in 1.0, 4 in 2.0
// and 3.0), then the header, a Python dict literal with 'descr',
// 'fortran_order' and 'shape', padded with spaces and a newline so that
// the data starts at a multiple of 64 bytes.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "tessera/runtime/quantize.hpp"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

using namespace tessera::run;

namespace {

/// The text after `'key':` in `header`, up to the next comma outside
/// parentheses, trimmed; empty if the key is absent.
std::string field(const std::string &header, const std::string &key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return "";
  at = header.find(':', at);
  if (at == std::string::npos)
    return "";
  size_t end = ++at;
  for (int depth = 0; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  std::string value = header.substr(at, end - at);
  size_t first = value.find_first_not_of(" \t");
  size_t last = value.find_last_not_of(" \t");
  return first == std::string::npos ? ""
                                    : value.substr(first, last - first + 1);
}

/// The element reader for NumPy type `descr` and its size, or null.
using Reader = double (*)(const uint8_t *);
template <typename T> double load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return double(v);
}
double loadHalf(const uint8_t *p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return tessera::fromF16(v);
}
Reader readerOf(const std::string &descr, size_t &size) {
  // Byte order: little endian ('<'), native ('=', little on the hosts
  // tessera-run runs on) or not applicable ('|', single bytes).
  if (descr.size() < 3 ||
      (descr[0] != '<' && descr[0] != '=' && descr[0] != '|'))
    return nullptr;
  std::string type = descr.substr(1);
  static const struct {
    const char *name;
    size_t size;
    Reader reader;
  } types[] = {
      {"f2", 2, loadHalf},       {"f4", 4, load<float>},
      {"f8", 8, load<double>},   {"i1", 1, load<int8_t>},
      {"i2", 2, load<int16_t>},  {"i4", 4, load<int32_t>},
      {"i8", 8, load<int64_t>},  {"u1", 1, load<uint8_t>},
      {"u2", 2, load<uint16_t>}, {"u4", 4, load<uint32_t>},
      {"u8", 8, load<uint64_t>}, {"b1", 1, load<uint8_t>},
  };
  for (const auto &t : types)
    if (type == t.name) {
      size = t.size;
      return t.reader;
    }
  return nullptr;
}

} // namespace

bool tessera::run::readNpy(const std::string &path, NpyArray &array,
                           std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open " + path;
    return false;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  auto fail = [&](const std::string &why) {
    error = path + ": " + why;
    return false;
  };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0)
    return fail("not a .npy file");
  auto byte = [&](size_t i) { return uint8_t(bytes[i]); };
  size_t major = byte(6), lengthBytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3 || bytes.size() < 8 + lengthBytes)
    return fail("unknown .npy version " + std::to_string(major));
  size_t length = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    length |= size_t(byte(8 + i)) << (8 * i);
  size_t start = 8 + lengthBytes;
  if (bytes.size() < start + length)
    return fail("truncated header");
  std::string header = bytes.substr(start, length);
  std::string descr = field(header, "descr");
  if (descr.size() < 2 || descr.front() != '\'' || descr.back() != '\'')
    return fail("header without an element type");
  descr = descr.substr(1, descr.size() - 2);
  if (field(header, "fortran_order") != "False")
    return fail("Fortran order is not supported (save a C-ordered array)");
  size_t size = 0;
  Reader reader = readerOf(descr, size);
  if (!reader)
    return fail("element type '" + descr +
                "' is not supported (floats, integers or bools)");
  std::string shape = field(header, "shape");
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
    return fail("header without a shape");
  array.shape.clear();
  std::stringstream dims(shape.substr(1, shape.size() - 2));
  std::string dim;
  int64_t count = 1;
  while (std::getline(dims, dim, ',')) {
    if (dim.find_first_not_of(" ") == std::string::npos)
      continue;
    int64_t extent = 0;
    try {
      size_t used = 0;
      extent = std::stoll(dim, &used);
      if (dim.find_first_not_of(" ", used) != std::string::npos)
        extent = -1;
    } catch (const std::exception &) {
      extent = -1;
    }
    if (extent < 0 || extent >= (int64_t(1) << 32))
      return fail("bad shape " + shape);
    array.shape.push_back(extent);
    count *= extent;
    if (count >= (int64_t(1) << 34))
      return fail("too large");
  }
  size_t data = start + length;
  if (bytes.size() - data < size_t(count) * size)
    return fail("truncated data (" + std::to_string(count) + " elements of " +
                descr + " expected)");
  array.values.resize(size_t(count));
  for (int64_t i = 0; i < count; ++i)
    array.values[size_t(i)] =
        reader(reinterpret_cast<const uint8_t *>(bytes.data()) + data +
               size_t(i) * size);
  return true;
}

bool tessera::run::writeNpy(const std::string &path,
                            const std::vector<int64_t> &shape,
                            const std::vector<double> &values,
                            const std::string &descr, std::string &error) {
  std::string dims;
  for (int64_t extent : shape)
    dims += std::to_string(extent) + ", ";
  // "(2, 3)" but "(5,)".
  dims.resize(dims.size() -
              std::min<size_t>(dims.size(), shape.size() > 1 ? 2 : 1));
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Magic, version, length, header and its newline: a multiple of 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  out += header;
  for (double v : values) {
    char buffer[8];
    size_t size = 0;
    if (descr == "<f4") {
      float f = float(v);
      std::memcpy(buffer, &f, size = 4);
    } else if (descr == "<f2") {
      uint16_t h = tessera::toF16(float(v));
      std::memcpy(buffer, &h, size = 2);
    } else if (descr == "|i1") {
      int8_t i = int8_t(v);
      std::memcpy(buffer, &i, size = 1);
    } else if (descr == "<i4") {
      int32_t i = int32_t(v);
      std::memcpy(buffer, &i, size = 4);
    } else if (descr == "<i8") {
      int64_t i = int64_t(v);
      std::memcpy(buffer, &i, size = 8);
    } else {
      error = "cannot write element type " + descr;
      return false;
    }
    out.append(buffer, size);
  }
  std::ofstream file(path, std::ios::binary);
  if (!file || !file.write(out.data(), std::streamsize(out.size()))) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}
