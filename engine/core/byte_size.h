// Byte counts as people write them: "52.6 MiB" in reports and errors, "8G" or "512M" on command lines.
#pragma once

#include <cstdint>
#include <string>

namespace ie {

/// "512 B", "3.5 KiB", "52.6 MiB", "16.0 GiB", "2.0 TiB".
std::string human_bytes(uint64_t bytes);
/// Parses a whole number of bytes with an optional binary suffix K, M, G or T (also KiB ... TiB, case-insensitive;
/// "1.5G" allowed). Throws Error(Usage) naming `what` on anything else, zero, or a value past 2^64.
uint64_t parse_byte_size(const std::string& text, const std::string& what);

}  // namespace ie
