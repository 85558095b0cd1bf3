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

#include "tessera/runtime/kernel_abi.h"

#include <openssl/evp.h>

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

/// Parses `view:<element>:<rank>` with 1 <= rank <= the runtime's largest,
/// or `scalar:<type>` of a type the runtime can pass: launches rely on it.
bool parseArgument(const std::string &arg, ArgSpec &spec) {
  if (arg.rfind("scalar:", 0) == 0) {
    spec.element = arg.substr(7);
    spec.bytes = scalarBytes(spec.element);
    return spec.bytes != 0;
  }
  if (arg.rfind("view:", 0) != 0)
    return false;
  size_t colon = arg.rfind(':');
  if (colon <= 5 || colon + 2 != arg.size())
    return false;
  char rank = arg.back();
  if (rank < '1' || rank > char('0' + TESSERA_MAX_RANK))
    return false;
  spec.view = true;
  spec.element = arg.substr(5, colon - 5);
  spec.rank = rank - '0';
  return true;
}

/// Parses `dims:<arg>:<d0>x<d1>...` of a view argument of that rank, each
/// size "?" or below 2^48, at least one of them not "?", once per view.
bool parseDims(const std::string &token, KernelEntry &kernel) {
  std::string_view rest(token);
  rest.remove_prefix(std::string_view(TESSERA_DIMS_PREFIX).size());
  size_t colon = rest.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 4 ||
      rest.substr(0, colon).find_first_not_of("0123456789") !=
          std::string_view::npos)
    return false;
  size_t arg = std::stoul(std::string(rest.substr(0, colon)));
  if (arg >= kernel.specs.size())
    return false;
  ArgSpec &spec = kernel.specs[arg];
  if (!spec.view || !spec.fixed.empty())
    return false;
  std::vector<int64_t> sizes;
  bool anyStatic = false;
  std::string_view list = rest.substr(colon + 1);
  while (true) {
    size_t x = list.find('x');
    std::string_view size = list.substr(0, x);
    if (size == "?") {
      sizes.push_back(-1);
    } else {
      if (size.empty() || size.size() > 14 ||
          size.find_first_not_of("0123456789") != std::string_view::npos)
        return false;
      sizes.push_back(std::stoll(std::string(size)));
      anyStatic = true;
    }
    if (x == std::string_view::npos)
      break;
    list.remove_prefix(x + 1);
  }
  if (!anyStatic || int64_t(sizes.size()) != spec.rank)
    return false;
  spec.fixed = std::move(sizes);
  return true;
}

/// Parses `tmap:<arg>:<cols>x<rows>` of a 2-D or 3-D view argument, a box
/// row of one swizzle span (128, 64 or 32 bytes) and at most 256 rows.
bool parseTensorMap(const std::string &token, KernelEntry &kernel) {
  unsigned long arg = 0, cols = 0, rows = 0;
  char x = 0;
  std::istringstream in(token.substr(5));
  char colon = 0;
  if (!(in >> arg >> colon >> cols >> x >> rows) || colon != ':' || x != 'x' ||
      !in.eof() || arg >= kernel.specs.size())
    return false;
  const ArgSpec &spec = kernel.specs[arg];
  size_t bytes = scalarBytes(spec.element);
  if (!spec.view || spec.rank < 2 || spec.rank > 3 || !bytes ||
      (cols * bytes != 128 && cols * bytes != 64 && cols * bytes != 32) ||
      rows < 1 || rows > 256)
    return false;
  kernel.tensorMaps.push_back(
      {arg, static_cast<uint32_t>(cols), static_cast<uint32_t>(rows)});
  return true;
}

/// Parses `cluster:<x>x<y>x<z>`: positive dimensions, at most 16 blocks
/// (sm_90a's non-portable limit).
bool parseCluster(const std::string &token, KernelEntry &kernel) {
  unsigned long dims[3] = {0, 0, 0};
  char x1 = 0, x2 = 0;
  std::istringstream in(token.substr(std::strlen(TESSERA_CLUSTER_PREFIX)));
  if (!(in >> dims[0] >> x1 >> dims[1] >> x2 >> dims[2]) || x1 != 'x' ||
      x2 != 'x' || !in.eof())
    return false;
  for (unsigned long dim : dims)
    if (dim < 1 || dim > 16)
      return false;
  if (dims[0] * dims[1] * dims[2] > 16)
    return false;
  for (int d = 0; d < 3; ++d)
    kernel.cluster[d] = static_cast<uint32_t>(dims[d]);
  return true;
}

/// The most threads a block has and the most dynamic shared memory it may
/// ask for on any device (drivers take both as 32-bit values).
constexpr int64_t kMaxThreads = 1024;
constexpr int64_t kMaxSharedBytes = (int64_t(1) << 31) - 1;

bool parseKernels(std::string_view text, std::vector<KernelEntry> &kernels) {
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    KernelEntry kernel;
    if (!(words >> kernel.name >> kernel.threads >> kernel.sharedBytes) ||
        kernel.threads < 1 || kernel.threads > kMaxThreads ||
        kernel.sharedBytes < 0 || kernel.sharedBytes > kMaxSharedBytes)
      return false;
    std::string arg;
    bool clustered = false, dims = false;
    while (words >> arg) {
      if (clustered)
        return false; // the cluster comes last
      if (arg == TESSERA_PERSISTENT_TOKEN) {
        // After the arguments, whose last ones (the grid's size and the
        // programs started, index scalars) the launch passes; before the
        // tensor maps.
        size_t count = kernel.args.size(), passed = TESSERA_PERSISTENT_ARGS;
        if (kernel.persistent || !kernel.tensorMaps.empty() || dims ||
            count < passed)
          return false;
        for (size_t i = count - passed; i < count; ++i)
          if (kernel.args[i] != "scalar:index")
            return false;
        kernel.args.resize(count - passed);
        kernel.specs.resize(count - passed);
        kernel.persistent = true;
        continue;
      }
      if (arg.rfind(TESSERA_CLUSTER_PREFIX, 0) == 0) {
        if (!parseCluster(arg, kernel))
          return false;
        clustered = true;
        continue;
      }
      if (arg.rfind(TESSERA_NAMES_PREFIX, 0) == 0) {
        // After the arguments (and `persistent`), before their sizes: one
        // name per argument the caller passes.
        if (!kernel.argNames.empty() || dims || !kernel.tensorMaps.empty())
          return false;
        std::string_view list(arg);
        list.remove_prefix(std::strlen(TESSERA_NAMES_PREFIX));
        while (true) {
          size_t comma = list.find(',');
          kernel.argNames.emplace_back(list.substr(0, comma));
          if (comma == std::string_view::npos)
            break;
          list.remove_prefix(comma + 1);
        }
        if (kernel.argNames.size() != kernel.args.size())
          return false;
        dims = true;
        continue;
      }
      if (arg.rfind(TESSERA_ASSUME_PREFIX, 0) == 0) {
        // After the arguments (and their sizes), before the tensor maps.
        Assumption assumption;
        if (!kernel.tensorMaps.empty() ||
            !parseAssumption(arg, kernel, assumption))
          return false;
        kernel.assumptions.push_back(std::move(assumption));
        dims = true;
        continue;
      }
      if (arg.rfind(TESSERA_DIMS_PREFIX, 0) == 0) {
        // After the arguments, before the assumptions and tensor maps.
        if (!kernel.tensorMaps.empty() || !kernel.assumptions.empty() ||
            !parseDims(arg, kernel))
          return false;
        dims = true;
        continue;
      }
      if (arg.rfind(TESSERA_TENSOR_MAP_PREFIX, 0) == 0) {
        if (!parseTensorMap(arg, kernel))
          return false;
        continue;
      }
      if (!kernel.tensorMaps.empty() || kernel.persistent || dims)
        return false; // sizes and tensor maps follow the arguments
      ArgSpec spec;
      if (!parseArgument(arg, spec))
        return false;
      kernel.args.push_back(arg);
      kernel.specs.push_back(std::move(spec));
    }
    kernels.push_back(std::move(kernel));
  }
  for (KernelEntry &kernel : kernels) {
    // A persistent grid is one-dimensional: so are its clusters.
    if (kernel.persistent && kernel.cluster[1] * kernel.cluster[2] != 1)
      return false;
    for (const std::string &arg : kernel.args)
      kernel.argPointers.push_back(arg.c_str());
    kernel.argNames.resize(kernel.args.size());
    for (const std::string &name : kernel.argNames)
      kernel.namePointers.push_back(name.c_str());
  }
  return true;
}
} // namespace

size_t tessera::runtime::scalarBytes(std::string_view type) {
  if (type == "index")
    return 8;
  if (type.rfind("f8", 0) == 0)
    return 1;
  if (type == "f16" || type == "bf16")
    return 2;
  if (type == "f32")
    return 4;
  if (type == "f64")
    return 8;
  // Signless integers iN, N in [1, 64], in the smallest C integer that holds
  // them (i1 as a one-byte bool).
  if (type.size() < 2 || type.size() > 3 || type[0] != 'i')
    return 0;
  unsigned width = 0;
  for (char c : type.substr(1)) {
    if (c < '0' || c > '9')
      return 0;
    width = width * 10 + (c - '0');
  }
  if (width < 1 || width > 64)
    return 0;
  size_t bytes = 1;
  while (bytes * 8 < width)
    bytes *= 2;
  return bytes;
}

std::string tessera::runtime::describeImage(std::string_view arch,
                                            uint16_t kind) {
  std::string name(arch);
  if (kind == kImageCubin)
    name += " cubin";
  else if (kind == kImagePtx)
    name += " PTX";
  return name;
}

/// TESSERA_BUNDLE_DIGEST_KEY's digest (lowercase hex) of `parts`, by
/// OpenSSL; empty if OpenSSL fails.
std::string imageDigest(std::initializer_list<std::string_view> parts) {
  EVP_MD_CTX *context = EVP_MD_CTX_new();
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned length = 0;
  bool ok = context && EVP_DigestInit_ex(context, EVP_sha256(), nullptr);
  for (std::string_view part : parts) {
    unsigned char size[8];
    for (int i = 0; i < 8; ++i)
      size[i] = static_cast<unsigned char>(uint64_t(part.size()) >> (8 * i));
    ok = ok && EVP_DigestUpdate(context, size, sizeof size) &&
         EVP_DigestUpdate(context, part.data(), part.size());
  }
  ok = ok && EVP_DigestFinal_ex(context, digest, &length);
  EVP_MD_CTX_free(context);
  if (!ok)
    return "";
  static const char hex[] = "0123456789abcdef";
  std::string text;
  for (unsigned i = 0; i < length; ++i) {
    text += hex[digest[i] >> 4];
    text += hex[digest[i] & 15];
  }
  return text;
}

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
    uint16_t kind;
    if (!read(binary, entryOffset, kind) ||
        !read(binary, entryOffset + 8, stringOffset) ||
        !read(binary, entryOffset + 16, numStrings) ||
        !read(binary, entryOffset + 24, imageOffset) ||
        !read(binary, entryOffset + 32, imageSize) ||
        imageOffset > binary.size() || binary.size() - imageOffset < imageSize)
      return fail(TESSERA_ERROR_INVALID_BUNDLE, "truncated offload entry");
    BundleImage image;
    image.kind = kind;
    image.image = binary.substr(imageOffset, imageSize);
    std::string_view kernels, digest;
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
      else if (key == TESSERA_BUNDLE_KERNELS_KEY)
        kernels = value;
      else if (key == TESSERA_BUNDLE_DIGEST_KEY)
        digest = value;
    }
    if (!parseKernels(kernels, image.kernels))
      return fail(TESSERA_ERROR_INVALID_BUNDLE,
                  "malformed kernel metadata of the " + image.arch +
                      " image (each kernel: name, threads (1 to 1024), "
                      "shared bytes (below 2^31), then view:<element>:<rank> "
                      "or scalar:<type> arguments, scalars integers or "
                      "floats of at most 64 bits, then `persistent` after "
                      "four scalar:index ones if the kernel is, then "
                      "dims:<arg>:<d0>x<d1>... of view arguments (sizes or "
                      "?, one per dimension, not all ?), then "
                      "assume:<expr>:<message> conditions on the arguments, "
                      "then "
                      "tmap:<arg>:<cols>x<rows> tensor maps of 2-D or 3-D "
                      "views with box rows of 128, 64 or 32 bytes, then at "
                      "most one "
                      "cluster:<x>x<y>x<z> of at most 16 blocks, "
                      "<x>x1x1 if persistent)");
    // Last, so that malformed metadata is named as such: nothing of an
    // image whose bytes or description changed since tessera-compile wrote
    // them is loaded.
    std::string name = describeImage(image.arch, kind);
    if (digest.empty())
      return fail(TESSERA_ERROR_INVALID_BUNDLE,
                  "the " + name + " image carries no digest (" +
                      TESSERA_BUNDLE_DIGEST_KEY +
                      "); recompile the bundle with this tessera-compile");
    if (imageDigest({image.arch, image.triple, kernels, image.image}) != digest)
      return fail(TESSERA_ERROR_INVALID_BUNDLE,
                  "the " + name + " image does not match its digest: the " +
                      "bundle is corrupted or was modified after " +
                      "tessera-compile wrote it");
    images.push_back(std::move(image));
    at += (size + 7) / 8 * 8;
  }
  if (images.empty())
    return fail(TESSERA_ERROR_INVALID_BUNDLE, "the bundle is empty");
  return TESSERA_SUCCESS;
}
