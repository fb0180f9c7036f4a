/* Mounts over its view of the system and unmounts the sandbox's fences. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

int solve(void) {
  mkdir("mnt", 0755);
  int tmpfs = mount("none", "mnt", "tmpfs", 0, 0) == 0 ? 0 : errno;
  int remount = mount(0, "/", 0, MS_REMOUNT | MS_BIND, 0) == 0 ? 0 : errno;
  int umount = umount2("/tmp", MNT_DETACH) == 0 ? 0 : errno;
  printf("mount=%s remount=%s umount=%s\n", strerror(tmpfs), strerror(remount), strerror(umount));
  return (tmpfs == 0 || remount == 0 || umount == 0) ? 42 : 0;
}
