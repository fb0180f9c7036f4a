/* Connects to a service of the host on 127.0.0.1 (the test listens there and counts). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int solve(void) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(KJ_PORT);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int rc = connect(s, (struct sockaddr*)&a, sizeof a);
  printf("connect 127.0.0.1:KJ_PORT: %s\n", rc == 0 ? "connected" : strerror(errno));
  close(s);
  return rc == 0 ? 42 : 0;
}
