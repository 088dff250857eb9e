// Detects the host CPU's caches, vector width and cores for the cost model.
#include "polyhedral/target/cpu_target.h"

#include <cstdio>
#include <cstdlib>

#include <fstream>
#include <sstream>
#include <thread>

#include <unistd.h>

namespace atl::poly {

namespace {

/// "48K", "1024K", "32M" -> bytes; 0 when unreadable.
long parse_size(std::string s) {
  if (s.empty()) return 0;
  long mul = 1;
  char last = s.back();
  if (last == 'K' || last == 'k') mul = 1024, s.pop_back();
  else if (last == 'M' || last == 'm') mul = 1024 * 1024, s.pop_back();
  try {
    return std::stol(s) * mul;
  } catch (...) {
    return 0;
  }
}

/// Size of cache `level` (data or unified) of cpu0 from sysfs; 0 when absent.
long sysfs_cache(int level) {
  for (int index = 0; index < 8; ++index) {
    std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream lv(dir + "level"), ty(dir + "type"), sz(dir + "size");
    if (!lv || !ty || !sz) continue;
    int l = 0;
    std::string type, size;
    lv >> l;
    ty >> type;
    sz >> size;
    if (l == level && type != "Instruction") return parse_size(size);
  }
  return 0;
}

long sysconf_or(int name, long fallback) {
  long v = ::sysconf(name);
  return v > 0 ? v : fallback;
}

CpuTarget detect() {
  CpuTarget t;
  // sysfs first: sysconf's L3 on some VMs sums every slice of the package.
  t.l1_bytes = sysfs_cache(1);
  t.l2_bytes = sysfs_cache(2);
  t.l3_bytes = sysfs_cache(3);
#ifdef _SC_LEVEL1_DCACHE_SIZE
  if (t.l1_bytes <= 0) t.l1_bytes = sysconf_or(_SC_LEVEL1_DCACHE_SIZE, 0);
  if (t.l2_bytes <= 0) t.l2_bytes = sysconf_or(_SC_LEVEL2_CACHE_SIZE, 0);
  if (t.l3_bytes <= 0) t.l3_bytes = sysconf_or(_SC_LEVEL3_CACHE_SIZE, 0);
#endif
  if (t.l1_bytes <= 0) t.l1_bytes = 32 * 1024;
  if (t.l2_bytes <= 0) t.l2_bytes = 512 * 1024;
  if (t.l3_bytes <= 0) t.l3_bytes = t.l2_bytes;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) t.isa = "avx512", t.vector_lanes = 16, t.vector_registers = 32;
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    t.isa = "avx2", t.vector_lanes = 8, t.vector_registers = 16;
  else t.isa = "scalar", t.vector_lanes = 1, t.vector_registers = 16;
#else
  t.isa = "scalar", t.vector_lanes = 1, t.vector_registers = 16;
#endif
  // The golden tests print schedules as one machine makes them on any
  // machine: ATOLL_CPU_ISA names the ISA the cost model assumes (the code
  // still runs: LLVM splits wider vectors for the real CPU), and
  // ATOLL_CPU_CACHES "L1,L2,L3" the cache sizes in KiB.
  if (const char *caches = std::getenv("ATOLL_CPU_CACHES")) {
    long l1 = 0, l2 = 0, l3 = 0;
    if (std::sscanf(caches, "%ld,%ld,%ld", &l1, &l2, &l3) == 3 && l1 > 0 && l2 > 0 && l3 > 0)
      t.l1_bytes = l1 * 1024, t.l2_bytes = l2 * 1024, t.l3_bytes = l3 * 1024;
  }
  if (const char *isa = std::getenv("ATOLL_CPU_ISA")) {
    const std::string v = isa;
    if (v == "avx512") t.isa = "avx512", t.vector_lanes = 16, t.vector_registers = 32;
    else if (v == "avx2") t.isa = "avx2", t.vector_lanes = 8, t.vector_registers = 16;
    else if (v == "scalar") t.isa = "scalar", t.vector_lanes = 1, t.vector_registers = 16;
  }
  unsigned hw = std::thread::hardware_concurrency();
  t.cores = static_cast<int>(sysconf_or(_SC_NPROCESSORS_ONLN, hw ? hw : 1));
  return t;
}

}  // namespace

const CpuTarget &host_target() {
  static const CpuTarget t = detect();
  return t;
}

std::string describe(const CpuTarget &t) {
  std::ostringstream os;
  os << t.isa << " " << t.vector_lanes << " lanes, " << t.vector_registers << " regs, L1 " << t.l1_bytes / 1024
     << "K L2 " << t.l2_bytes / 1024 << "K L3 " << t.l3_bytes / 1024 << "K, " << t.cores << " cores";
  return os.str();
}

}  // namespace atl::poly
