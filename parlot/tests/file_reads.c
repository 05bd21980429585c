/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --flush-on-block writes a thread's events before a system call that may
   wait for another thread or process: before reading a pipe, not before
   reading a regular file, nor (but once an interval) before a wait that
   ends by itself within --flush-interval, nor before one that cannot
   wait (a non-blocking descriptor, a datagram socket's connect).  After
   new calls each time: 300 read() and 300 pread() of this program's own
   file, 300 sleeps of 100 us and 300 polls of nothing for 1 ms (as PMIx
   waits in MPI_Init), 300 reads of an empty non-blocking pipe, 300
   connects of a UDP socket and 30 getifaddrs() (netlink requests and
   their replies; as MPI libraries poll and probe), then 40 reads of a
   pipe (which never wait: a byte is written first).  The
   checker counts the STREAM chunks of the thread: about 40, not the
   1,391 a tool that wrote before every such call made. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int work(int k)
{
   return k * 3 + 1;
}

int main(int argc, char **argv)
{
   char buf[16];
   int fd = open(argv[0], O_RDONLY), p[2], sum = 0, i;

   (void)argc;
   if (fd < 0 || pipe(p) < 0)
      return 1;
   for (i = 0; i < 300; i++) {
      sum += work(i);
      if (pread(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf)
         return 2;
      sum += work(i + 1);
      if (lseek(fd, 0, SEEK_SET) != 0 || read(fd, buf, 1) != 1)
         return 3;
   }
   {
      int q[2], u = socket(AF_INET, SOCK_DGRAM, 0);
      struct sockaddr_in to = { 0 };
      to.sin_family = AF_INET;
      to.sin_port = htons(9);
      to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (u < 0 || pipe(q) < 0 || fcntl(q[0], F_SETFL, O_NONBLOCK) < 0)
         return 5;
      for (i = 0; i < 300; i++) {
         sum += work(i);
         if (read(q[0], buf, 1) != -1)        /* empty: EAGAIN */
            return 6;
         sum += work(i + 1);
         if (connect(u, (struct sockaddr *)&to, sizeof to) != 0)
            return 7;
      }
      close(u);
      close(q[0]);
      close(q[1]);
   }
   for (i = 0; i < 30; i++) {
      struct ifaddrs *ifa;
      sum += work(i);
      if (getifaddrs(&ifa) != 0)
         return 8;
      freeifaddrs(ifa);
   }
   for (i = 0; i < 300; i++) {
      struct timespec ts = { 0, 100000 };
      sum += work(i);
      nanosleep(&ts, NULL);
      sum += work(i + 1);
      poll(NULL, 0, 1);
   }
   for (i = 0; i < 40; i++) {
      sum += work(i);
      if (write(p[1], "x", 1) != 1 || read(p[0], buf, 1) != 1)
         return 4;
   }
   printf("%d\n", sum > 0);
   return 0;
}
