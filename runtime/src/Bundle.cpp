//===- Bundle.cpp - Reads tessera-compile bundles ---------------*- C++ -*-===//
//
// A bundle is a sequence of LLVM offload binaries (version 1), each 8-byte
// aligned: a 32-byte header (magic 10 FF 10 AD, version, size, entry offset,
// entry size), a 40-byte entry (image kind, offload kind, flags, string
// table offset and count, image offset and size) and NUL-terminated strings
// addressed by offsets from the binary's start.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <cstring>
#include <sstream>

using namespace tessera::runtime;

namespace {
template <typename T> bool read(std::string_view data, uint64_t at, T &out) {
  if (at > data.size() || data.size() - at < sizeof(T))
    return false;
  std::memcpy(&out, data.data() + at, sizeof(T));
  return true;
}

bool readString(std::string_view binary, uint64_t at, std::string_view &out) {
  if (at >= binary.size())
    return false;
  size_t end = binary.find('\0', at);
  if (end == std::string_view::npos)
    return false;
  out = binary.substr(at, end - at);
  return true;
}

/// Whether `arg` is `view:<element>:<rank>` with 1 <= rank <= the runtime's
/// largest, or `scalar:<type>`: launches rely on it.
bool validArgument(const std::string &arg) {
  if (arg.rfind("scalar:", 0) == 0)
    return arg.size() > 7;
  if (arg.rfind("view:", 0) != 0)
    return false;
  size_t colon = arg.rfind(':');
  if (colon <= 5 || colon + 2 != arg.size())
    return false;
  char rank = arg.back();
  return rank >= '1' && rank <= char('0' + TESSERA_MAX_RANK);
}

bool parseKernels(std::string_view text, std::vector<KernelEntry> &kernels) {
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    KernelEntry kernel;
    if (!(words >> kernel.name >> kernel.threads >> kernel.sharedBytes) ||
        kernel.threads < 1 || kernel.sharedBytes < 0)
      return false;
    std::string arg;
    while (words >> arg) {
      if (!validArgument(arg))
        return false;
      kernel.args.push_back(arg);
    }
    kernels.push_back(std::move(kernel));
  }
  for (KernelEntry &kernel : kernels)
    for (const std::string &arg : kernel.args)
      kernel.argPointers.push_back(arg.c_str());
  return true;
}
} // namespace

tessera_status tessera::runtime::readBundle(std::string_view data,
                                            std::vector<BundleImage> &images) {
  uint64_t at = 0;
  while (at < data.size()) {
    std::string_view rest = data.substr(at);
    // Trailing alignment padding.
    if (rest.find_first_not_of('\0') == std::string_view::npos)
      break;
    static const unsigned char magic[4] = {0x10, 0xFF, 0x10, 0xAD};
    uint32_t version;
    uint64_t size, entryOffset, entrySize;
    if (rest.size() < 32 || std::memcmp(rest.data(), magic, 4) != 0 ||
        !read(rest, 4, version) || !read(rest, 8, size) ||
        !read(rest, 16, entryOffset) || !read(rest, 24, entrySize))
      return fail(TESSERA_ERROR_INVALID_BUNDLE,
                  "not a Tessera bundle (no offload binary at byte " +
                      std::to_string(at) + ")");
    if (version != 1 || size > rest.size() || size < 32)
      return fail(TESSERA_ERROR_INVALID_BUNDLE,
                  "unsupported or truncated offload binary at byte " +
                      std::to_string(at));
    std::string_view binary = rest.substr(0, size);
    uint64_t stringOffset, numStrings, imageOffset, imageSize;
    if (!read(binary, entryOffset + 8, stringOffset) ||
        !read(binary, entryOffset + 16, numStrings) ||
        !read(binary, entryOffset + 24, imageOffset) ||
        !read(binary, entryOffset + 32, imageSize) ||
        imageOffset > binary.size() || binary.size() - imageOffset < imageSize)
      return fail(TESSERA_ERROR_INVALID_BUNDLE, "truncated offload entry");
    BundleImage image;
    image.image = binary.substr(imageOffset, imageSize);
    std::string_view kernels;
    for (uint64_t i = 0; i < numStrings; ++i) {
      uint64_t keyOffset, valueOffset;
      std::string_view key, value;
      if (!read(binary, stringOffset + 16 * i, keyOffset) ||
          !read(binary, stringOffset + 16 * i + 8, valueOffset) ||
          !readString(binary, keyOffset, key) ||
          !readString(binary, valueOffset, value))
        return fail(TESSERA_ERROR_INVALID_BUNDLE, "truncated string table");
      if (key == "arch")
        image.arch = value;
      else if (key == "triple")
        image.triple = value;
      else if (key == "tessera.kernels")
        kernels = value;
    }
    if (!parseKernels(kernels, image.kernels))
      return fail(TESSERA_ERROR_INVALID_BUNDLE, "malformed kernel metadata");
    images.push_back(std::move(image));
    at += (size + 7) / 8 * 8;
  }
  if (images.empty())
    return fail(TESSERA_ERROR_INVALID_BUNDLE, "the bundle is empty");
  return TESSERA_SUCCESS;
}
