/* The floor a user's own program sets for reading one array from each file of a family:
 * open + pread + close, libc only (a program linking libhdf5 or dudley also pays for loading
 * them when it starts). Prints the sum of the first float64 of each read, which the benchmark
 * compares with dudley's output.
 *
 * Usage: pread_files OFFSET BYTES FILE... */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: pread_files OFFSET BYTES FILE...\n");
    return 2;
  }
  const off_t offset = (off_t)strtoll(argv[1], NULL, 10);
  const size_t bytes = (size_t)strtoull(argv[2], NULL, 10);
  static unsigned char buffer[1 << 16];
  if (bytes < sizeof(double) || bytes > sizeof buffer) return 2;
  double sum = 0;
  for (int i = 3; i < argc; ++i) {
    const int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
    if (fd < 0 || pread(fd, buffer, bytes, offset) != (ssize_t)bytes) {
      perror(argv[i]);
      return 1;
    }
    close(fd);
    double first;
    memcpy(&first, buffer, sizeof first);
    sum += first;
  }
  printf("%.17g\n", sum);
  return 0;
}
