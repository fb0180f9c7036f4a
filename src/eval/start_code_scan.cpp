#include "eval/start_code_scan.h"

#include <algorithm>
#include <set>

#include "eval/elf_image.h"

namespace kjudge {

namespace {

bool is_irelative(std::uint16_t machine, std::uint64_t type) {
  return (machine == EM_X86_64 && type == R_X86_64_IRELATIVE) ||
         (machine == EM_AARCH64 && type == R_AARCH64_IRELATIVE);
}

}  // namespace

std::vector<std::string> code_before_harness(const std::filesystem::path& program,
                                             std::size_t harness_entries,
                                             const std::string& taker) {
  const ElfImage img(program);
  const Elf64_Ehdr& eh = img.header();
  const std::vector<Elf64_Shdr>& sections = img.sections();

  std::uint64_t preinit_bytes = 0;  // what the loader reads: DT_PREINIT_ARRAYSZ
  std::uint64_t preinit_section = 0;
  std::set<std::string> ifuncs;
  std::uint64_t irelative = 0;
  for (const auto& sh : sections) {
    if (sh.sh_type == SHT_PREINIT_ARRAY) preinit_section += sh.sh_size;
    if (sh.sh_type == SHT_DYNAMIC) {
      for (std::uint64_t off = 0; off + sizeof(Elf64_Dyn) <= sh.sh_size; off += sizeof(Elf64_Dyn)) {
        const auto d = img.at<Elf64_Dyn>(sh.sh_offset + off);
        if (d.d_tag == DT_NULL) break;
        if (d.d_tag == DT_PREINIT_ARRAYSZ) preinit_bytes = d.d_un.d_val;
      }
    }
    if ((sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) && sh.sh_link < sections.size()) {
      const auto& strtab = sections[sh.sh_link];
      for (std::uint64_t off = 0; off + sizeof(Elf64_Sym) <= sh.sh_size; off += sizeof(Elf64_Sym)) {
        const auto s = img.at<Elf64_Sym>(sh.sh_offset + off);
        // Defined here: a call into another library's IFUNC (libc's memcpy) is that library's.
        if (ELF64_ST_TYPE(s.st_info) == STT_GNU_IFUNC && s.st_shndx != SHN_UNDEF)
          ifuncs.insert(img.c_string(strtab.sh_offset + s.st_name));
      }
    }
    if (sh.sh_type == SHT_RELA) {
      for (std::uint64_t off = 0; off + sizeof(Elf64_Rela) <= sh.sh_size; off += sizeof(Elf64_Rela))
        irelative +=
            is_irelative(eh.e_machine, ELF64_R_TYPE(img.at<Elf64_Rela>(sh.sh_offset + off).r_info));
    }
  }

  std::vector<std::string> reasons;
  const std::uint64_t entries = std::max(preinit_bytes, preinit_section) / sizeof(Elf64_Addr);
  if (entries > harness_entries)
    reasons.push_back(".preinit_array holds " + std::to_string(entries) +
                      (entries == 1 ? " entry" : " entries") + " where kjudge brings " +
                      std::to_string(harness_entries) + ": code that runs before " + taker);
  else if (entries < harness_entries)
    reasons.push_back(
        "the harness's .preinit_array entry is missing: it would never take its "
        "result channel");
  if (!ifuncs.empty()) {
    std::string names;
    int shown = 0;
    for (const auto& n : ifuncs) {
      if (shown++ == 5) {
        names += ", …";
        break;
      }
      names += (names.empty() ? "" : ", ") + n;
    }
    reasons.push_back("IFUNC symbols (" + names +
                      "): their resolvers run while the loader relocates the program, before " +
                      taker);
  } else if (irelative > 0) {
    reasons.push_back(std::to_string(irelative) +
                      " IRELATIVE relocations: IFUNC resolvers the loader runs before " + taker);
  }
  return reasons;
}

}  // namespace kjudge
