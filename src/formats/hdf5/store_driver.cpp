#include "store_driver.hpp"

#include <algorithm>
#include <cstring>
#include <exception>

#include "dudley/core/error.hpp"

namespace dudley::hdf5 {
namespace {

// What an access list carries to the driver's open: a reference to the source of its own
// (each copy of the list holds one: fapl_copy, fapl_free).
struct DriverInfo {
  std::shared_ptr<io::ByteSource>* source;
};

void* copy_info(const void* info) {
  const auto* from = static_cast<const DriverInfo*>(info);
  return new DriverInfo{new std::shared_ptr<io::ByteSource>(*from->source)};
}

herr_t free_info(void* info) {
  auto* held = static_cast<DriverInfo*>(info);
  delete held->source;
  delete held;
  return 0;
}

// An open file: libhdf5's part first (it is handed back as an H5FD_t*), then ours.
struct SourceFile {
  H5FD_t pub;
  std::shared_ptr<io::ByteSource> source;
  haddr_t eoa = 0;
};

SourceFile* own(H5FD_t* f) {
  return reinterpret_cast<SourceFile*>(f);
}
const SourceFile* own(const H5FD_t* f) {
  return reinterpret_cast<const SourceFile*>(f);
}

// Puts `message` on libhdf5's error stack, where the reader's checked() finds it.
herr_t failed(const char* function, H5E_major_t major, H5E_minor_t minor, const char* message) {
  H5Epush2(H5E_DEFAULT, __FILE__, function, __LINE__, H5E_ERR_CLS, major, minor, "%s", message);
  return -1;
}

H5FD_t* open_file(const char* name, unsigned flags, hid_t fapl, haddr_t) {
  if ((flags & (H5F_ACC_RDWR | H5F_ACC_TRUNC | H5F_ACC_CREAT)) != 0) {
    failed("open_file", H5E_VFL, H5E_CANTOPENFILE, "files read through a store are read only");
    return nullptr;
  }
  const auto* info = static_cast<const DriverInfo*>(H5Pget_driver_info(fapl));
  if (info == nullptr || info->source == nullptr) {
    failed("open_file", H5E_VFL, H5E_BADVALUE, "no source given to the store driver");
    return nullptr;
  }
  // Another name is an external link's target: a file beside this one in its store, which
  // this source does not hold.
  if (name == nullptr || (*info->source)->name() != name) {
    failed("open_file", H5E_VFL, H5E_CANTOPENFILE,
           "external links are not followed in a file read from a URL");
    return nullptr;
  }
  auto* file = new SourceFile{};
  file->source = *info->source;
  return &file->pub;
}

herr_t close_file(H5FD_t* f) {
  delete own(f);
  return 0;
}

// One file per source: libhdf5 asks whether two opens are the same file.
int compare(const H5FD_t* a, const H5FD_t* b) {
  const auto* x = own(a)->source.get();
  const auto* y = own(b)->source.get();
  return x == y ? 0 : (std::less<>()(x, y) ? -1 : 1);
}

// libhdf5 gathers small metadata reads and sieves small data reads into larger ones: fewer
// requests to a server.
herr_t query(const H5FD_t*, unsigned long* flags) {
  *flags = H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_ACCUMULATE_METADATA | H5FD_FEAT_DATA_SIEVE;
  return 0;
}

haddr_t get_eoa(const H5FD_t* f, H5FD_mem_t) {
  return own(f)->eoa;
}

herr_t set_eoa(H5FD_t* f, H5FD_mem_t, haddr_t address) {
  own(f)->eoa = address;
  return 0;
}

haddr_t get_eof(const H5FD_t* f, H5FD_mem_t) {
  try {
    return own(f)->source->size();
  } catch (const std::exception& e) {
    failed("get_eof", H5E_VFL, H5E_CANTGET, e.what());
    return HADDR_UNDEF;
  }
}

// Reads past the end read zeros, as libhdf5's own drivers give them.
herr_t read(H5FD_t* f, H5FD_mem_t, hid_t, haddr_t address, size_t size, void* out) {
  try {
    const io::ByteSource& source = *own(f)->source;
    const uint64_t end = source.size();
    const uint64_t have = address >= end ? 0 : std::min<uint64_t>(size, end - address);
    if (have > 0) source.read(address, have, out);
    std::memset(static_cast<char*>(out) + have, 0, size - have);
    return 0;
  } catch (const std::exception& e) {
    return failed("read", H5E_IO, H5E_READERROR, e.what());
  }
}

herr_t write(H5FD_t*, H5FD_mem_t, hid_t, haddr_t, size_t, const void*) {
  return failed("write", H5E_IO, H5E_WRITEERROR, "files read through a store are read only");
}

// libhdf5's driver table, filled by name (the struct grew fields in later releases).
H5FD_class_t driver_class() {
  H5FD_class_t c{};
#if H5_VERSION_GE(1, 13, 2)
  c.version = H5FD_CLASS_VERSION;
  c.value = static_cast<H5FD_class_value_t>(600);  // a user driver's value (256 and up)
#endif
  c.name = "dudley_source";
  c.maxaddr = HADDR_MAX;
  c.fc_degree = H5F_CLOSE_WEAK;
  c.fapl_size = sizeof(DriverInfo);
  c.fapl_copy = copy_info;
  c.fapl_free = free_info;
  c.open = open_file;
  c.close = close_file;
  c.cmp = compare;
  c.query = query;
  c.get_eoa = get_eoa;
  c.set_eoa = set_eoa;
  c.get_eof = get_eof;
  c.read = read;
  c.write = write;
  const H5FD_mem_t map[] = H5FD_FLMAP_DICHOTOMY;
  std::copy(std::begin(map), std::end(map), std::begin(c.fl_map));
  return c;
}

hid_t driver_id() {
  static const H5FD_class_t table = driver_class();
  static const hid_t id = H5FDregister(&table);
  if (id < 0) throw Error(ErrorCategory::kIo, "libhdf5 refused dudley's store driver");
  return id;
}

}  // namespace

hid_t source_access_list(const std::shared_ptr<io::ByteSource>& source) {
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  if (fapl < 0) throw Error(ErrorCategory::kIo, "libhdf5 cannot make a file access list");
  std::shared_ptr<io::ByteSource> held = source;
  const DriverInfo info{&held};  // copied by libhdf5 (copy_info)
  if (H5Pset_driver(fapl, driver_id(), &info) < 0) {
    H5Pclose(fapl);
    throw Error(ErrorCategory::kIo, "libhdf5 refused dudley's store driver");
  }
  return fapl;
}

}  // namespace dudley::hdf5
