// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <span>

namespace vigil::wire {

// CRC-32 with the IEEE 802.3 polynomial (reflected 0xEDB88320, initial value and final xor
// 0xFFFFFFFF): the checksum Go's crc32.ChecksumIEEE and zlib compute, which memberlist puts in its
// has_crc wrapper. crc32_ieee("123456789") == 0xCBF43926.
std::uint32_t crc32_ieee(std::span<const std::uint8_t> data);

}  // namespace vigil::wire
