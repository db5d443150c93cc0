/* The floor for reading a whole file into new memory in a fresh process, as a careful C
 * programmer writes it: one read() into a buffer of the file's size, from one of two kinds
 * of memory, so the two can be told apart:
 *   huge   2 MiB-aligned, MADV_HUGEPAGE (numpy's choice for big arrays): one fault per
 *          2 MiB, each zeroing a whole huge page;
 *   plain  a plain anonymous mapping: one fault per 4 KiB page.
 * Prints "SECONDS SUM" (allocation + read, then the sum of the float64 values after the
 * clock stops, so the read cannot be skipped).
 *
 * Usage: c_read_once huge|plain FILE [SKIP]   (SKIP: bytes of header before the data) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  if (argc < 3 || (strcmp(argv[1], "huge") != 0 && strcmp(argv[1], "plain") != 0)) {
    fprintf(stderr, "usage: c_read_once huge|plain FILE [SKIP]\n");
    return 2;
  }
  const int huge = strcmp(argv[1], "huge") == 0;
  const off_t skip = argc > 3 ? (off_t)strtoll(argv[3], NULL, 10) : 0;
  const double t0 = now();
  const int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= skip) {
    perror(argv[2]);
    return 1;
  }
  const size_t bytes = (size_t)(st.st_size - skip);
  const size_t align = (size_t)2 << 20;
  unsigned char* buffer;
  if (huge) {
    buffer = aligned_alloc(align, (bytes + align - 1) / align * align);
    if (buffer) madvise(buffer, bytes, MADV_HUGEPAGE);
  } else {
    void* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    buffer = p == MAP_FAILED ? NULL : p;
  }
  if (!buffer) {
    perror("memory");
    return 1;
  }
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = pread(fd, buffer + done, bytes - done, skip + (off_t)done);
    if (n <= 0) {
      perror(argv[2]);
      return 1;
    }
    done += (size_t)n;
  }
  close(fd);
  const double seconds = now() - t0;
  double sum = 0;
  const double* v = (const double*)buffer;
  for (size_t i = 0; i < bytes / sizeof(double); ++i) sum += v[i];
  printf("%.6f %.17g\n", seconds, sum);
  return 0;
}
