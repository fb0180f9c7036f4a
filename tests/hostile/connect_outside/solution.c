/* Reaches out of the machine. 192.0.2.1 is TEST-NET-1 (RFC 5737): routed nowhere, so even a
 * failed-open sandbox reaches nothing; what matters is whether a route exists at all. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int solve(void) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(80);
  inet_pton(AF_INET, "192.0.2.1", &a.sin_addr);
  int rc = connect(s, (struct sockaddr*)&a, sizeof a);
  int err = rc == 0 ? 0 : errno;
  printf("connect 192.0.2.1:80: %s\n", rc == 0 ? "connected" : strerror(err));
  close(s);
  /* EINPROGRESS means a route out exists: the packet left. */
  return (rc == 0 || err == EINPROGRESS) ? 42 : 0;
}
