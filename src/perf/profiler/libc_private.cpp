// The profiler's own copies of the C library's memory and string routines, hidden (never
// exported), so every call the profiler makes to them, the statically linked C++ runtime's
// included (std::string, std::vector, the demangler), binds here at link time and never to a
// definition of the profiled program's. A program that defined memcpy would otherwise receive
// every line of the record as it is built (issue 31; run/raw_syscall.h says why a program's
// definition wins). Built with -fno-builtin and without loop-to-call rewriting (CMakeLists.txt),
// or the compiler would turn these loops back into calls of themselves.
//
// Plain and small rather than fast: the profiler copies while it records (a few words a
// record) and while it writes the record at exit, outside any timed region.
#include <cstdarg>
#include <cstddef>
#include <cstdint>

namespace {

// Eight bytes at a time where both sides allow it, through a type that may alias anything.
using Word = std::uint64_t __attribute__((may_alias, aligned(1)));

}  // namespace

extern "C" {

__attribute__((visibility("hidden"))) void* memcpy(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  for (; n >= 8; n -= 8, d += 8, s += 8)
    *reinterpret_cast<Word*>(d) = *reinterpret_cast<const Word*>(s);
  for (; n > 0; --n) *d++ = *s++;
  return dst;
}

__attribute__((visibility("hidden"))) void* memmove(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (d == s || n == 0) return dst;
  if (d < s || d >= s + n) return memcpy(dst, src, n);
  while (n > 0) {
    --n;
    d[n] = s[n];
  }
  return dst;
}

__attribute__((visibility("hidden"))) void* memset(void* dst, int c, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const std::uint64_t word = 0x0101010101010101ull * static_cast<unsigned char>(c);
  for (; n >= 8; n -= 8, d += 8) *reinterpret_cast<Word*>(d) = word;
  for (; n > 0; --n) *d++ = static_cast<unsigned char>(c);
  return dst;
}

__attribute__((visibility("hidden"))) int memcmp(const void* a, const void* b, std::size_t n) {
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  for (; n > 0; --n, ++x, ++y)
    if (*x != *y) return *x < *y ? -1 : 1;
  return 0;
}

__attribute__((visibility("hidden"))) void* memchr(const void* p, int c, std::size_t n) {
  const auto* s = static_cast<const unsigned char*>(p);
  for (; n > 0; --n, ++s)
    if (*s == static_cast<unsigned char>(c)) return const_cast<unsigned char*>(s);
  return nullptr;
}

__attribute__((visibility("hidden"))) std::size_t strlen(const char* s) {
  const char* p = s;
  while (*p != '\0') ++p;
  return static_cast<std::size_t>(p - s);
}

__attribute__((visibility("hidden"))) int strcmp(const char* a, const char* b) {
  for (; *a != '\0' && *a == *b; ++a, ++b) {
  }
  const auto x = static_cast<unsigned char>(*a), y = static_cast<unsigned char>(*b);
  return x == y ? 0 : (x < y ? -1 : 1);
}

__attribute__((visibility("hidden"))) int strncmp(const char* a, const char* b, std::size_t n) {
  for (; n > 0; --n, ++a, ++b) {
    const auto x = static_cast<unsigned char>(*a), y = static_cast<unsigned char>(*b);
    if (x != y) return x < y ? -1 : 1;
    if (x == '\0') return 0;
  }
  return 0;
}

__attribute__((visibility("hidden"))) char* strstr(const char* hay, const char* needle) {
  if (*needle == '\0') return const_cast<char*>(hay);
  for (; *hay != '\0'; ++hay) {
    const char *h = hay, *n = needle;
    while (*h != '\0' && *h == *n) ++h, ++n;
    if (*n == '\0') return const_cast<char*>(hay);
  }
  return nullptr;
}

// The statically linked demangler's one use of sprintf: `sprintf(buf, "%d", n)` for the numbers
// in a kernel's name (cp-demangle.c, d_append_num). Kernel names choose what a `kernels` timing
// mode counts, so the program must not write them. Anything but "%d" is copied as it is.
__attribute__((visibility("hidden"))) int sprintf(char* out, const char* format, ...) {
  std::size_t k = 0;
  if (format[0] == '%' && format[1] == 'd' && format[2] == '\0') {
    va_list args;
    va_start(args, format);
    const long long v = va_arg(args, int);
    va_end(args);
    unsigned long long u = v < 0 ? 0ull - static_cast<unsigned long long>(v) : v;
    char digits[24];
    std::size_t n = 0;
    do {
      digits[n++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u != 0);
    if (v < 0) out[k++] = '-';
    while (n > 0) out[k++] = digits[--n];
  } else {
    for (; format[k] != '\0'; ++k) out[k] = format[k];
  }
  out[k] = '\0';
  return static_cast<int>(k);
}

}  // extern "C"
