#include "nvtx_hooks.h"

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include <atomic>
#include <cstdint>
#include <cwchar>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "clock.h"
#include "store.h"

// NVTX leaves these handle types opaque for the tool to define.
struct nvtxDomainRegistration_st {
  std::string name;
};
struct nvtxStringRegistration_st {
  std::string text;
};

namespace kjudge::profiler {

namespace {

struct OpenRange {
  nvtxDomainHandle_t domain = nullptr;
  std::uint64_t start = 0;
  std::uint32_t tid = 0;
  std::string name;
};

// A heap stack behind a trivially destructible pointer: a static destructor may still pop after
// the main thread's thread_local objects are gone.
thread_local std::vector<OpenRange>* t_stack = nullptr;
struct StackOwner {
  ~StackOwner() {
    delete t_stack;
    t_stack = nullptr;
  }
};
thread_local StackOwner t_stack_owner;

std::vector<OpenRange>& stack() {
  if (t_stack == nullptr) {
    t_stack = new std::vector<OpenRange>;
    (void)&t_stack_owner;  // odr-use, so the owner is constructed on this thread
  }
  return *t_stack;
}

// Start/end ranges: ids unique in the process, ended from any thread. Never freed: NVTX calls
// may come from static destructors, after this library's own would have run.
struct StartedRanges {
  std::mutex mutex;
  std::unordered_map<nvtxRangeId_t, OpenRange> open;
  std::atomic<nvtxRangeId_t> next_id{1};
};
// Made as the library loads, before any NVTX call: a function-local static would need the C++
// runtime's guard, which waits through libc's syscall(), a name the program may define.
StartedRanges* const g_started = new StartedRanges;
StartedRanges& started() { return *g_started; }

std::string utf8(const wchar_t* text) {
  std::string out;
  if (text == nullptr) return out;
  for (; *text != L'\0'; ++text) {
    auto c = static_cast<std::uint32_t>(*text);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if (c < 0x800) {
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      out += static_cast<char>(0xE0 | (c >> 12));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x110000) {
      out += static_cast<char>(0xF0 | (c >> 18));
      out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (c & 0x3F));
    }
  }
  return out;
}

std::string message(const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr) return {};
  switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return attributes->message.ascii != nullptr ? attributes->message.ascii : "";
    case NVTX_MESSAGE_TYPE_UNICODE:
      return utf8(attributes->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return attributes->message.registered != nullptr ? attributes->message.registered->text : "";
    default:
      return {};
  }
}

// A range of a named domain says so, so that a library's "bench_region" is not the harness's.
std::string qualified(nvtxDomainHandle_t domain, std::string name) {
  if (domain == nullptr) return name;
  return domain->name + "::" + name;
}

int push(nvtxDomainHandle_t domain, std::string name) {
  if (active_store() == nullptr) return -1;
  auto& ranges = stack();
  int level = 0;
  for (const auto& open : ranges) level += open.domain == domain ? 1 : 0;
  ranges.push_back({domain, 0, thread_id(), qualified(domain, std::move(name))});
  ranges.back().start = now_ns();  // last, so the range holds none of the profiler's own work
  return level;
}

int pop(nvtxDomainHandle_t domain) {
  std::uint64_t end = now_ns();
  Store* store = active_store();
  if (store == nullptr || t_stack == nullptr) return -1;
  auto& ranges = *t_stack;
  for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) {
    if (it->domain != domain) continue;
    OpenRange open = std::move(*it);
    ranges.erase(std::next(it).base());
    int level = 0;
    for (const auto& other : ranges) level += other.domain == domain ? 1 : 0;
    store->add_range({open.start, end, open.tid, std::move(open.name)});
    return level;
  }
  return -1;
}

nvtxRangeId_t start_range(nvtxDomainHandle_t domain, std::string name) {
  if (active_store() == nullptr) return 0;
  auto& ranges = started();
  nvtxRangeId_t id = ranges.next_id.fetch_add(1, std::memory_order_relaxed);
  OpenRange open{domain, 0, thread_id(), qualified(domain, std::move(name))};
  std::lock_guard lock(ranges.mutex);
  ranges.open.emplace(id, std::move(open)).first->second.start = now_ns();
  return id;
}

void end_range(nvtxRangeId_t id) {
  std::uint64_t end = now_ns();
  Store* store = active_store();
  if (store == nullptr) return;
  auto& ranges = started();
  OpenRange open;
  {
    std::lock_guard lock(ranges.mutex);
    auto it = ranges.open.find(id);
    if (it == ranges.open.end()) return;
    open = std::move(it->second);
    ranges.open.erase(it);
  }
  store->add_range({open.start, end, open.tid, std::move(open.name)});
}

int NVTX_API range_push_a(const char* text) { return push(nullptr, text != nullptr ? text : ""); }
int NVTX_API range_push_w(const wchar_t* text) { return push(nullptr, utf8(text)); }
int NVTX_API range_push_ex(const nvtxEventAttributes_t* attributes) {
  return push(nullptr, message(attributes));
}
int NVTX_API range_pop() { return pop(nullptr); }

nvtxRangeId_t NVTX_API range_start_a(const char* text) {
  return start_range(nullptr, text != nullptr ? text : "");
}
nvtxRangeId_t NVTX_API range_start_w(const wchar_t* text) {
  return start_range(nullptr, utf8(text));
}
nvtxRangeId_t NVTX_API range_start_ex(const nvtxEventAttributes_t* attributes) {
  return start_range(nullptr, message(attributes));
}
void NVTX_API range_end(nvtxRangeId_t id) { end_range(id); }

int NVTX_API domain_range_push_ex(nvtxDomainHandle_t domain,
                                  const nvtxEventAttributes_t* attributes) {
  return push(domain, message(attributes));
}
int NVTX_API domain_range_pop(nvtxDomainHandle_t domain) { return pop(domain); }
nvtxRangeId_t NVTX_API domain_range_start_ex(nvtxDomainHandle_t domain,
                                             const nvtxEventAttributes_t* attributes) {
  return start_range(domain, message(attributes));
}
void NVTX_API domain_range_end(nvtxDomainHandle_t /*domain*/, nvtxRangeId_t id) { end_range(id); }

// Domains and registered strings live as long as the process: NVTX never says when the last
// range that names them has ended (domain destruction included).
nvtxDomainHandle_t NVTX_API domain_create_a(const char* name) {
  return new nvtxDomainRegistration_st{name != nullptr ? name : ""};
}
nvtxDomainHandle_t NVTX_API domain_create_w(const wchar_t* name) {
  return new nvtxDomainRegistration_st{utf8(name)};
}
void NVTX_API domain_destroy(nvtxDomainHandle_t /*domain*/) {}
nvtxStringHandle_t NVTX_API register_string_a(nvtxDomainHandle_t /*domain*/, const char* text) {
  return new nvtxStringRegistration_st{text != nullptr ? text : ""};
}
nvtxStringHandle_t NVTX_API register_string_w(nvtxDomainHandle_t /*domain*/, const wchar_t* text) {
  return new nvtxStringRegistration_st{utf8(text)};
}

template <typename Function>
NvtxFunctionPointer entry(Function* function) {
  return reinterpret_cast<NvtxFunctionPointer>(function);
}

void install(const NvtxExportTableCallbacks* callbacks, NvtxCallbackModule module,
             std::initializer_list<std::pair<unsigned, NvtxFunctionPointer>> entries) {
  NvtxFunctionTable table = nullptr;
  unsigned size = 0;
  if (callbacks->GetModuleFunctionTable(module, &table, &size) == 0 || table == nullptr) return;
  for (const auto& [id, function] : entries) {
    if (id < size && table[id] != nullptr) *table[id] = function;
  }
}

int initialize(NvtxGetExportTableFunc_t get_export_table) {
  if (active_store() == nullptr || get_export_table == nullptr) return 0;
  const auto* callbacks =
      static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
  if (callbacks == nullptr || callbacks->struct_size < sizeof(NvtxExportTableCallbacks)) return 0;
  install(callbacks, NVTX_CB_MODULE_CORE,
          {{NVTX_CBID_CORE_RangePushA, entry(range_push_a)},
           {NVTX_CBID_CORE_RangePushW, entry(range_push_w)},
           {NVTX_CBID_CORE_RangePushEx, entry(range_push_ex)},
           {NVTX_CBID_CORE_RangePop, entry(range_pop)},
           {NVTX_CBID_CORE_RangeStartA, entry(range_start_a)},
           {NVTX_CBID_CORE_RangeStartW, entry(range_start_w)},
           {NVTX_CBID_CORE_RangeStartEx, entry(range_start_ex)},
           {NVTX_CBID_CORE_RangeEnd, entry(range_end)}});
  // nvtx3.hpp's scoped_range goes through the domain calls, even for the global domain.
  install(callbacks, NVTX_CB_MODULE_CORE2,
          {{NVTX_CBID_CORE2_DomainRangePushEx, entry(domain_range_push_ex)},
           {NVTX_CBID_CORE2_DomainRangePop, entry(domain_range_pop)},
           {NVTX_CBID_CORE2_DomainRangeStartEx, entry(domain_range_start_ex)},
           {NVTX_CBID_CORE2_DomainRangeEnd, entry(domain_range_end)},
           {NVTX_CBID_CORE2_DomainCreateA, entry(domain_create_a)},
           {NVTX_CBID_CORE2_DomainCreateW, entry(domain_create_w)},
           {NVTX_CBID_CORE2_DomainDestroy, entry(domain_destroy)},
           {NVTX_CBID_CORE2_DomainRegisterStringA, entry(register_string_a)},
           {NVTX_CBID_CORE2_DomainRegisterStringW, entry(register_string_w)}});
  return 1;
}

}  // namespace

}  // namespace kjudge::profiler

extern "C" {

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
  return kjudge::profiler::initialize(get_export_table);
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2Preinject(
    NvtxGetExportTableFunc_t get_export_table) {
  return kjudge::profiler::initialize(get_export_table);
}

}  // extern "C"
