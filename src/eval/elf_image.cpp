#include "eval/elf_image.h"

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace kjudge {

ElfImage::ElfImage(const std::filesystem::path& p) : path_(p.string()) {
  std::ifstream in(p, std::ios::binary);
  if (!in) fail("cannot be opened");
  bytes_.assign(std::istreambuf_iterator<char>(in), {});
  header_ = at<Elf64_Ehdr>(0);
  if (std::memcmp(header_.e_ident, ELFMAG, SELFMAG) != 0) fail("has no ELF header");
  if (header_.e_ident[EI_CLASS] != ELFCLASS64 || header_.e_ident[EI_DATA] != ELFDATA2LSB)
    fail("is not 64-bit little-endian");
  if (header_.e_shnum > 0 && header_.e_shentsize != sizeof(Elf64_Shdr))
    fail("has odd section headers");
  for (std::uint64_t i = 0; i < header_.e_shnum; ++i)
    sections_.push_back(at<Elf64_Shdr>(header_.e_shoff + i * sizeof(Elf64_Shdr)));
}

std::string ElfImage::c_string(std::uint64_t offset) const {
  if (offset >= bytes_.size()) return "?";
  const char* s = bytes_.data() + offset;
  return std::string(s, strnlen(s, bytes_.size() - offset));
}

void ElfImage::fail(const std::string& why) const {
  throw std::runtime_error(path_ + ": " + why + " (not a readable ELF64 file)");
}

std::vector<ElfImage::Symbol> ElfImage::symbols(std::uint32_t type) const {
  std::vector<Symbol> out;
  for (const auto& sh : sections_) {
    if (sh.sh_type != type || sh.sh_link >= sections_.size()) continue;
    const auto& strtab = sections_[sh.sh_link];
    std::uint64_t index = 0;
    for (std::uint64_t off = 0; off + sizeof(Elf64_Sym) <= sh.sh_size;
         off += sizeof(Elf64_Sym), ++index) {
      if (index == 0) continue;
      const auto s = at<Elf64_Sym>(sh.sh_offset + off);
      std::string name = c_string(strtab.sh_offset + s.st_name);
      name = name.substr(0, name.find('@'));
      out.push_back({std::move(name), s, index});
    }
  }
  return out;
}

std::vector<std::uint64_t> ElfImage::copy_relocated() const {
  std::vector<std::uint64_t> out;
  for (const auto& sh : sections_) {
    if (sh.sh_type != SHT_RELA || sh.sh_link >= sections_.size() ||
        sections_[sh.sh_link].sh_type != SHT_DYNSYM)
      continue;
    for (std::uint64_t off = 0; off + sizeof(Elf64_Rela) <= sh.sh_size; off += sizeof(Elf64_Rela)) {
      const auto r = at<Elf64_Rela>(sh.sh_offset + off);
      const auto type = ELF64_R_TYPE(r.r_info);
      if ((header_.e_machine == EM_X86_64 && type == R_X86_64_COPY) ||
          (header_.e_machine == EM_AARCH64 && type == R_AARCH64_COPY))
        out.push_back(ELF64_R_SYM(r.r_info));
    }
  }
  return out;
}

}  // namespace kjudge
