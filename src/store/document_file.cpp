#include "store/document_file.hpp"

#include <lzma.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "core/atomic_file.hpp"
#include "core/error.hpp"

namespace assay::store {

namespace {

// Results documents are megabytes; the cap keeps a hostile file from filling memory.
constexpr std::size_t kMaxDecompressedBytes = std::size_t{1} << 30;
constexpr std::uint64_t kDecoderMemoryLimit = std::uint64_t{256} << 20;  // xz -9's window needs 65 MiB
constexpr std::array<unsigned char, 6> kXzMagic = {0xFD, '7', 'z', 'X', 'Z', 0x00};

bool starts_with_xz_magic(const std::string& bytes) {
  return bytes.size() >= kXzMagic.size() && std::memcmp(bytes.data(), kXzMagic.data(), kXzMagic.size()) == 0;
}

const char* lzma_reason(lzma_ret r) {
  switch (r) {
    case LZMA_FORMAT_ERROR: return "not in the xz format";
    case LZMA_OPTIONS_ERROR: return "compressed with options this liblzma does not support";
    case LZMA_DATA_ERROR: return "corrupt compressed data";
    case LZMA_BUF_ERROR: return "truncated: the xz stream ends early";
    case LZMA_MEMLIMIT_ERROR: return "needs more than 256 MiB of memory to decompress";
    case LZMA_MEM_ERROR: return "out of memory";
    default: return "liblzma error";
  }
}

// lzma_end on every way out.
struct Decoder {
  lzma_stream stream = LZMA_STREAM_INIT;
  Decoder() = default;
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;
  ~Decoder() { lzma_end(&stream); }
};

std::string decompress_xz(const std::string& packed, const std::filesystem::path& path) {
  Decoder d;
  // LZMA_CONCATENATED: `xz` may write several streams into one file; all are read.
  if (const lzma_ret r = lzma_stream_decoder(&d.stream, kDecoderMemoryLimit, LZMA_CONCATENATED); r != LZMA_OK)
    throw InternalError(path.string() + ": cannot start the xz decoder: " + lzma_reason(r));
  d.stream.next_in = reinterpret_cast<const std::uint8_t*>(packed.data());
  d.stream.avail_in = packed.size();
  std::string out;
  std::array<std::uint8_t, 1 << 16> buffer{};
  for (;;) {
    d.stream.next_out = buffer.data();
    d.stream.avail_out = buffer.size();
    const lzma_ret r = lzma_code(&d.stream, LZMA_FINISH);  // all the input is here
    const std::size_t produced = buffer.size() - d.stream.avail_out;
    if (out.size() + produced > kMaxDecompressedBytes)  // before the string grows past the cap
      throw InputError(path.string() + ": xz: decompresses to more than 1 GiB, more than any results document");
    out.append(reinterpret_cast<const char*>(buffer.data()), produced);
    if (r == LZMA_STREAM_END) return out;
    if (r != LZMA_OK) throw InputError(path.string() + ": xz: " + lzma_reason(r));
  }
}

}  // namespace

std::string read_document_text(const std::filesystem::path& path) {
  std::string bytes = read_text_file(path);
  return starts_with_xz_magic(bytes) ? decompress_xz(bytes, path) : bytes;
}

std::string session_identity(const ResultsDocument& doc) {
  const std::string text = to_json_text(doc);
  std::uint64_t fnv = 14695981039346656037ull;  // FNV-1a
  for (unsigned char c : text) fnv = (fnv ^ c) * 1099511628211ull;
  const std::size_t other = std::hash<std::string>{}(text);
  return std::to_string(text.size()) + ":" + std::to_string(fnv) + ":" + std::to_string(other);
}

bool has_document_name(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  const auto ends_with = [&name](const std::string& tail) {
    return name.size() > tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends_with(".json") || ends_with(".json.xz");
}

}  // namespace assay::store
