#include "jit/object_loader.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>

#include "jit/perf_map_file.hpp"

namespace wavestack::jit {
namespace {

// Address space per arena: a unit's code is tens of KiB, so thousands of units fit, and every
// 32-bit PC-relative reference within an arena reaches.
constexpr std::size_t kArenaBytes = std::size_t{1} << 30;
constexpr std::uint64_t kNotPlaced = std::numeric_limits<std::uint64_t>::max();
constexpr std::size_t kMaxAlignment = 4096;

// Counts forks in this process's children: an arena made before a fork is shared with the
// child, so whichever side loads next must not write into it.
std::atomic<std::uint64_t> fork_generation{0};

// One lock for every loader's state (a process has one loader; tests make more), held across
// fork() by the handlers below: a child forked while a build thread was linking would
// otherwise inherit it locked, and its first load would wait forever. Every arena's own lock is
// taken only under this one.
std::mutex& loaders_mutex() {
  static auto* mutex = new std::mutex();  // never destroyed: a build may link during exit
  return *mutex;
}

// Why an object is refused (caught in load()).
struct Refusal {
  std::string why;
};

template <typename T>
T read_at(std::string_view bytes, std::uint64_t offset) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) throw Refusal{"a truncated ELF object"};
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

std::string_view string_at(std::string_view table, std::uint32_t offset) {
  if (offset >= table.size()) throw Refusal{"a name outside its string table"};
  const std::string_view rest = table.substr(offset);
  const std::size_t end = rest.find('\0');
  if (end == std::string_view::npos) throw Refusal{"an unterminated name"};
  return rest.substr(0, end);
}

bool fits_int32(std::int64_t value) {
  return value >= std::numeric_limits<std::int32_t>::min() && value <= std::numeric_limits<std::int32_t>::max();
}

bool defines(const Elf64_Sym& symbol) {
  const unsigned binding = ELF64_ST_BIND(symbol.st_info);
  const unsigned type = ELF64_ST_TYPE(symbol.st_info);
  return symbol.st_shndx != SHN_UNDEF && (binding == STB_GLOBAL || binding == STB_WEAK) && type != STT_SECTION &&
         type != STT_FILE;
}

}  // namespace

// One object's link, in the order that refuses before anything is written: read the headers,
// lay the sections out, resolve the names, then place, copy and relocate.
class ObjectLoader::Link {
 public:
  Link(ObjectLoader& loader, std::string_view object) : loader_(loader), object_(object) {
    const auto header = read_at<Elf64_Ehdr>(object, 0);
    if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
        header.e_ident[EI_DATA] != ELFDATA2LSB || header.e_type != ET_REL || header.e_machine != EM_X86_64 ||
        header.e_shentsize != sizeof(Elf64_Shdr)) {
      throw Refusal{"not an x86-64 ELF relocatable object"};
    }
    sections_.reserve(header.e_shnum);
    for (std::uint64_t i = 0; i < header.e_shnum; ++i) {
      sections_.push_back(read_at<Elf64_Shdr>(object, header.e_shoff + i * sizeof(Elf64_Shdr)));
    }
    if (header.e_shstrndx >= sections_.size()) throw Refusal{"no section names"};
    section_names_ = contents(sections_[header.e_shstrndx]);
  }

  // Sections to memory: code and read-only data only.
  void lay_out() {
    placement_.assign(sections_.size(), kNotPlaced);
    for (std::size_t i = 0; i < sections_.size(); ++i) {
      const Elf64_Shdr& section = sections_[i];
      if ((section.sh_flags & SHF_ALLOC) == 0) continue;
      const std::string name(string_at(section_names_, section.sh_name));
      if ((section.sh_flags & (SHF_WRITE | SHF_TLS)) != 0) throw Refusal{"a writable section (" + name + ")"};
      if (section.sh_type != SHT_PROGBITS && section.sh_type != SHT_X86_64_UNWIND) {
        throw Refusal{"a section of type " + std::to_string(section.sh_type) + " (" + name + ")"};
      }
      const std::uint64_t alignment = std::max<std::uint64_t>(section.sh_addralign, 1);
      if (alignment > kMaxAlignment || (alignment & (alignment - 1)) != 0) {
        throw Refusal{"a section aligned to " + std::to_string(alignment) + " (" + name + ")"};
      }
      (void)contents(section);  // in range
      size_ = (size_ + alignment - 1) & ~(alignment - 1);
      placement_[i] = size_;
      size_ += section.sh_size;
      alignment_ = std::max<std::size_t>(alignment_, alignment);
    }
  }

  // The symbol table, and every name it leaves undefined resolved.
  void resolve_symbols() {
    const auto table = std::find_if(sections_.begin(), sections_.end(),
                                    [](const Elf64_Shdr& section) { return section.sh_type == SHT_SYMTAB; });
    if (table == sections_.end()) return;  // nothing to resolve or export
    symbol_table_ = static_cast<std::size_t>(table - sections_.begin());
    if (table->sh_entsize != sizeof(Elf64_Sym) || table->sh_link >= sections_.size()) {
      throw Refusal{"a malformed symbol table"};
    }
    const std::string_view entries = contents(*table);
    names_ = contents(sections_[table->sh_link]);
    symbols_.resize(entries.size() / sizeof(Elf64_Sym));
    std::memcpy(symbols_.data(), entries.data(), symbols_.size() * sizeof(Elf64_Sym));
    addresses_.assign(symbols_.size(), kNotPlaced);
    for (std::size_t i = 1; i < symbols_.size(); ++i) {
      const Elf64_Sym& symbol = symbols_[i];
      if (symbol.st_shndx == SHN_ABS) {
        addresses_[i] = symbol.st_value;
      } else if (symbol.st_shndx == SHN_COMMON || symbol.st_shndx >= SHN_LORESERVE) {
        throw Refusal{"a common or special symbol (" + std::string(string_at(names_, symbol.st_name)) + ")"};
      } else if (symbol.st_shndx == SHN_UNDEF) {
        const std::string name(string_at(names_, symbol.st_name));
        const std::uint64_t address = loader_.resolve(name);
        if (address == 0 && ELF64_ST_BIND(symbol.st_info) != STB_WEAK) {
          throw Refusal{"an undefined name no loaded object or library defines (" + name + ")"};
        }
        addresses_[i] = address;
      }
    }
  }

  // The definitions of `wanted`'s names, by symbol index.
  std::vector<std::size_t> find(std::span<const char* const> wanted) const {
    std::vector<std::size_t> found;
    for (const char* name : wanted) {
      std::size_t index = 0;
      for (std::size_t i = 1; i < symbols_.size() && index == 0; ++i) {
        if (defines(symbols_[i]) && string_at(names_, symbols_[i].st_name) == name) index = i;
      }
      if (index == 0) throw Refusal{std::string("no definition of ") + name};
      found.push_back(index);
    }
    return found;
  }

  // Places the sections, copies them and applies the relocations.
  void place() {
    const std::optional<CodeSpan> span = loader_.allocate(std::max<std::size_t>(size_, 1), alignment_);
    if (!span) throw Refusal{"no code arena space"};
    span_ = *span;
    for (std::size_t i = 0; i < sections_.size(); ++i) {
      if (placement_[i] == kNotPlaced) continue;
      const std::string_view bytes = contents(sections_[i]);
      std::memcpy(span_.writable + placement_[i], bytes.data(), bytes.size());
    }
    for (std::size_t i = 1; i < symbols_.size(); ++i) {
      const Elf64_Sym& symbol = symbols_[i];
      if (symbol.st_shndx == SHN_UNDEF || symbol.st_shndx >= SHN_LORESERVE) continue;
      if (symbol.st_shndx < placement_.size() && placement_[symbol.st_shndx] != kNotPlaced) {
        addresses_[i] = span_.executable + placement_[symbol.st_shndx] + symbol.st_value;
      }
    }
    for (const Elf64_Shdr& relocations : sections_) {
      if (relocations.sh_type == SHT_REL) throw Refusal{"REL relocations"};
      if (relocations.sh_type != SHT_RELA || relocations.sh_info >= sections_.size() ||
          placement_[relocations.sh_info] == kNotPlaced) {
        continue;  // relocations of a section not loaded (debugging information)
      }
      if (relocations.sh_link != symbol_table_) throw Refusal{"relocations against another symbol table"};
      relocate(relocations);
    }
  }

  std::uint64_t address(std::size_t symbol) const { return addresses_[symbol]; }

  // The global definitions, for objects loaded later.
  std::vector<std::pair<std::string, std::uint64_t>> definitions() const {
    std::vector<std::pair<std::string, std::uint64_t>> found;
    for (std::size_t i = 1; i < symbols_.size(); ++i) {
      if (defines(symbols_[i]) && addresses_[i] != kNotPlaced) {
        found.emplace_back(std::string(string_at(names_, symbols_[i].st_name)), addresses_[i]);
      }
    }
    return found;
  }

  // perf's lines for the code: each named function, and the rest of each code section after
  // the object alone (a unit's own functions are internal and unnamed).
  std::vector<PerfMapEntry> perf_entries(std::string_view object_name) const {
    std::vector<PerfMapEntry> lines;
    for (std::size_t s = 0; s < sections_.size(); ++s) {
      if (placement_[s] == kNotPlaced || (sections_[s].sh_flags & SHF_EXECINSTR) == 0) continue;
      std::vector<std::size_t> named;
      for (std::size_t i = 1; i < symbols_.size(); ++i) {
        if (symbols_[i].st_shndx == s && ELF64_ST_TYPE(symbols_[i].st_info) == STT_FUNC && symbols_[i].st_size != 0) {
          named.push_back(i);
        }
      }
      std::sort(named.begin(), named.end(),
                [this](std::size_t a, std::size_t b) { return addresses_[a] < addresses_[b]; });
      const std::string prefix = std::string(object_name) + ":";
      std::uint64_t covered = span_.executable + placement_[s];
      for (const std::size_t i : named) {
        if (covered < addresses_[i]) lines.push_back({covered, addresses_[i] - covered, prefix + "code"});
        lines.push_back(
            {addresses_[i], symbols_[i].st_size, prefix + std::string(string_at(names_, symbols_[i].st_name))});
        covered = std::max(covered, addresses_[i] + symbols_[i].st_size);
      }
      const std::uint64_t end = span_.executable + placement_[s] + sections_[s].sh_size;
      if (covered < end) lines.push_back({covered, end - covered, prefix + "code"});
    }
    return lines;
  }

 private:
  std::string_view contents(const Elf64_Shdr& section) const {
    if (section.sh_type == SHT_NOBITS) return {};
    if (section.sh_offset > object_.size() || object_.size() - section.sh_offset < section.sh_size) {
      throw Refusal{"a section outside the object"};
    }
    return object_.substr(section.sh_offset, section.sh_size);
  }

  void relocate(const Elf64_Shdr& relocations) {
    const std::string_view entries = contents(relocations);
    const Elf64_Shdr& target = sections_[relocations.sh_info];
    const std::uint64_t base = placement_[relocations.sh_info];
    for (std::size_t at = 0; at + sizeof(Elf64_Rela) <= entries.size(); at += sizeof(Elf64_Rela)) {
      const auto entry = read_at<Elf64_Rela>(entries, at);
      const std::uint64_t symbol = ELF64_R_SYM(entry.r_info);
      const std::uint32_t type = ELF64_R_TYPE(entry.r_info);
      if (type == R_X86_64_NONE) continue;
      if (symbol == 0 || symbol >= symbols_.size() || addresses_[symbol] == kNotPlaced) {
        throw Refusal{"a relocation against a symbol of no loaded section"};
      }
      const std::size_t width = type == R_X86_64_64 || type == R_X86_64_PC64 ? 8 : 4;
      if (entry.r_offset > target.sh_size || target.sh_size - entry.r_offset < width) {
        throw Refusal{"a relocation outside its section"};
      }
      std::byte* where = span_.writable + base + entry.r_offset;
      const std::uint64_t place = span_.executable + base + entry.r_offset;
      const std::uint64_t value = addresses_[symbol] + static_cast<std::uint64_t>(entry.r_addend);
      switch (type) {
        case R_X86_64_64:
          std::memcpy(where, &value, 8);
          break;
        case R_X86_64_PC64: {
          const std::uint64_t relative = value - place;
          std::memcpy(where, &relative, 8);
          break;
        }
        case R_X86_64_PC32:
        case R_X86_64_PLT32: {
          auto relative = static_cast<std::int64_t>(value - place);
          if (!fits_int32(relative) && type == R_X86_64_PLT32 && entry.r_addend == -4) {
            // A call too far for its 32 bits (the C library): through a stub near it.
            const std::optional<std::uint64_t> stub = loader_.stub_to(addresses_[symbol]);
            if (stub) relative = static_cast<std::int64_t>(*stub + static_cast<std::uint64_t>(entry.r_addend) - place);
          }
          if (!fits_int32(relative)) throw Refusal{"a PC-relative reference out of 32-bit reach"};
          const auto narrow = static_cast<std::int32_t>(relative);
          std::memcpy(where, &narrow, 4);
          break;
        }
        default:
          throw Refusal{"relocation type " + std::to_string(type)};
      }
    }
  }

  ObjectLoader& loader_;
  std::string_view object_;
  std::vector<Elf64_Shdr> sections_;
  std::string_view section_names_;
  std::vector<std::uint64_t> placement_;  // each section's offset in the object's span
  std::size_t size_ = 0;
  std::size_t alignment_ = 16;
  std::size_t symbol_table_ = 0;
  std::string_view names_;
  std::vector<Elf64_Sym> symbols_;
  std::vector<std::uint64_t> addresses_;  // each symbol's, once known
  CodeSpan span_;
};

std::unique_ptr<ObjectLoader> ObjectLoader::create(std::string* why_not, std::uint64_t placement) {
#if defined(__x86_64__) && defined(__linux__)
  static const bool counting_forks = [] {
    return pthread_atfork([] { loaders_mutex().lock(); }, [] { loaders_mutex().unlock(); },
                          [] {
                            fork_generation.fetch_add(1, std::memory_order_relaxed);
                            loaders_mutex().unlock();
                          }) == 0;
  }();
  if (!counting_forks) {
    if (why_not != nullptr) *why_not = "pthread_atfork failed";
    return nullptr;
  }
  std::unique_ptr<CodeArena> arena = CodeArena::create(kArenaBytes, why_not, placement);
  if (!arena) return nullptr;
  std::unique_ptr<ObjectLoader> loader(new ObjectLoader());
  loader->arenas_.push_back(std::move(arena));
  loader->arena_fork_generation_ = fork_generation.load(std::memory_order_relaxed);
  return loader;
#else
  (void)placement;
  if (why_not != nullptr) *why_not = "the object loader links x86-64 Linux code only";
  return nullptr;
#endif
}

std::optional<std::vector<void*>> ObjectLoader::load(std::string_view object, std::string_view name,
                                                     std::span<const char* const> symbols, bool exports,
                                                     std::string* why_not) {
  try {
    Link link(*this, object);
    link.lay_out();
    link.resolve_symbols();
    const std::vector<std::size_t> wanted = link.find(symbols);
    link.place();
    if (exports) publish(link.definitions());
    if (perf_map_enabled()) write_perf_map(link.perf_entries(name));
    std::vector<void*> addresses;
    addresses.reserve(wanted.size());
    for (const std::size_t symbol : wanted) addresses.push_back(reinterpret_cast<void*>(link.address(symbol)));
    return addresses;
  } catch (const Refusal& refusal) {
    if (why_not != nullptr) *why_not = refusal.why;
    return std::nullopt;
  }
}

std::vector<std::pair<std::string, std::uint64_t>> ObjectLoader::exported() const {
  const std::lock_guard lock(loaders_mutex());
  return {exported_.begin(), exported_.end()};
}

std::uint64_t ObjectLoader::resolve(const std::string& name) {
  const std::lock_guard lock(loaders_mutex());
  if (const auto found = exported_.find(name); found != exported_.end()) return found->second;
  if (const auto found = process_symbols_.find(name); found != process_symbols_.end()) return found->second;
  const auto address = reinterpret_cast<std::uint64_t>(dlsym(RTLD_DEFAULT, name.c_str()));
  process_symbols_.emplace(name, address);
  return address;
}

std::optional<CodeSpan> ObjectLoader::allocate(std::size_t bytes, std::size_t alignment) {
  const std::lock_guard lock(loaders_mutex());
  const std::uint64_t generation = fork_generation.load(std::memory_order_relaxed);
  if (generation == arena_fork_generation_) {
    if (auto span = arenas_.back()->allocate(bytes, alignment)) return span;
  }
  // Full, or shared with a parent or child: a new arena (the old ones' code stays where it is).
  std::unique_ptr<CodeArena> arena = CodeArena::create(kArenaBytes, nullptr);
  if (!arena) return std::nullopt;
  arenas_.push_back(std::move(arena));
  arena_fork_generation_ = generation;
  stubs_.clear();
  return arenas_.back()->allocate(bytes, alignment);
}

std::optional<std::uint64_t> ObjectLoader::stub_to(std::uint64_t target) {
  {
    const std::lock_guard lock(loaders_mutex());
    if (const auto found = stubs_.find(target); found != stubs_.end()) return found->second;
  }
  // jmp *0(%rip), then the target's address.
  const std::optional<CodeSpan> span = allocate(16, 16);
  if (!span) return std::nullopt;
  constexpr std::uint8_t kJumpThroughNext[6] = {0xff, 0x25, 0, 0, 0, 0};
  std::memcpy(span->writable, kJumpThroughNext, sizeof kJumpThroughNext);
  std::memcpy(span->writable + sizeof kJumpThroughNext, &target, sizeof target);
  const std::lock_guard lock(loaders_mutex());
  return stubs_.emplace(target, span->executable).first->second;
}

void ObjectLoader::publish(const std::vector<std::pair<std::string, std::uint64_t>>& definitions) {
  const std::lock_guard lock(loaders_mutex());
  for (const auto& [name, address] : definitions) exported_.emplace(name, address);
}

}  // namespace wavestack::jit
