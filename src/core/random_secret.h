#pragma once
// Numbers nobody can know in advance (secrets, names no other process picks), drawn from
// std::random_device, which on Linux is the kernel's generator; not for simulations or jitter,
// where a seeded engine is cheaper.
#include <cstdint>

namespace kjudge {

std::uint32_t random_u32();

// Two 32-bit draws: std::random_device gives 32 bits at a time.
std::uint64_t random_u64();

}  // namespace kjudge
