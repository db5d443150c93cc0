# Programs (the command, tests, benchmarks, examples) link the compression, YAML, Avro, XML,
# INI and io_uring libraries from the static archives Debian's -dev packages ship beside the
# shared ones. Each shared library costs every process about 0.05 ms to load (its mmaps,
# relocations and page faults): an empty program linked with these 14 started in 2.1 ms
# against 1.2 ms without them, and a command that reads a few files pays that once per run.
# Shared objects (the HDF5 and viewer modules, the Python extension) and the installed
# package keep linking the shared libraries. Without an archive, programs link the shared
# library too.
option(DUDLEY_STATIC_DEPS "Link programs with the static archives of the libraries that have one" ON)
find_package(Threads REQUIRED)

# Sets `var` to what a target links for a library: the imported shared target `shared`, or,
# for an executable of this build, the archive `archive` (a file name, looked for where the
# linker looks) with the libraries it needs itself (ARGN, linked after it).
function(dudley_dependency var shared archive)
  set(choice "${shared}")
  if(DUDLEY_STATIC_DEPS)
    find_library(${var}_ARCHIVE NAMES ${archive})
    if(${var}_ARCHIVE)
      add_library(dudley_static_${var} STATIC IMPORTED)
      set_target_properties(dudley_static_${var} PROPERTIES
        IMPORTED_LOCATION "${${var}_ARCHIVE}"
        INTERFACE_LINK_LIBRARIES "${ARGN}")
      set(choice "$<BUILD_INTERFACE:$<IF:$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>,dudley_static_${var},${shared}>>$<INSTALL_INTERFACE:${shared}>")
    endif()
  endif()
  set(${var} "${choice}" PARENT_SCOPE)
endfunction()

dudley_dependency(DUDLEY_ZLIB ZLIB::ZLIB libz.a)
dudley_dependency(DUDLEY_DEFLATE PkgConfig::DEFLATE libdeflate.a)
dudley_dependency(DUDLEY_BZIP2 BZip2::BZip2 libbz2.a)
dudley_dependency(DUDLEY_LZ4 PkgConfig::LZ4 liblz4.a)
dudley_dependency(DUDLEY_ZSTD PkgConfig::ZSTD libzstd.a Threads::Threads)
dudley_dependency(DUDLEY_SNAPPY PkgConfig::SNAPPY libsnappy.a stdc++)
dudley_dependency(DUDLEY_BLOSC PkgConfig::BLOSC libblosc.a ${DUDLEY_LZ4} ${DUDLEY_ZSTD}
                  ${DUDLEY_SNAPPY} ${DUDLEY_ZLIB} Threads::Threads)
dudley_dependency(DUDLEY_LZMA PkgConfig::LZMA liblzma.a Threads::Threads)
dudley_dependency(DUDLEY_YAML PkgConfig::YAML libyaml.a)
dudley_dependency(DUDLEY_EXPAT PkgConfig::EXPAT libexpat.a m)
dudley_dependency(DUDLEY_INIH PkgConfig::INIH libinih.a)
dudley_dependency(DUDLEY_URING PkgConfig::URING liburing.a)
# Avro C's own dependencies, Jansson (its JSON) among them; used in the Avro block.
dudley_dependency(DUDLEY_JANSSON jansson libjansson.a)
