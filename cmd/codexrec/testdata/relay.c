/* relay.c is the floor for any stdio proxy at all: a thread per direction, each a
 * blocking read(2) and write(2) loop, nothing else. With -o FILE first (tee-c) each
 * thread also writes what it forwarded to FILE, a chunk at a time: what writing a
 * recording costs the simplest proxy. BenchmarkRoundTrip and BenchmarkBulk
 * build it when a C compiler is at hand. */
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct copy { int from, to; };

static int tee = -1;
static pthread_mutex_t teeLock = PTHREAD_MUTEX_INITIALIZER;

static int writeAll(int fd, const char *p, ssize_t n) {
	for (ssize_t off = 0; off < n;) {
		ssize_t w = write(fd, p + off, n - off);
		if (w <= 0) return -1;
		off += w;
	}
	return 0;
}

static void *copy(void *arg) {
	struct copy *c = arg;
	static __thread char buf[65536];
	for (;;) {
		ssize_t n = read(c->from, buf, sizeof buf);
		if (n <= 0) break;
		if (writeAll(c->to, buf, n)) return 0;
		if (tee >= 0) {
			pthread_mutex_lock(&teeLock);
			writeAll(tee, buf, n);
			pthread_mutex_unlock(&teeLock);
		}
	}
	close(c->to);
	return 0;
}

int main(int argc, char **argv) {
	int in[2], out[2];
	if (argc > 3 && strcmp(argv[1], "-o") == 0) {
		tee = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (tee < 0) return 2;
		argv += 2;
		argc -= 2;
	}
	if (argc < 2 || pipe(in) || pipe(out)) return 2;
	pid_t pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]); close(in[1]); close(out[0]); close(out[1]);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	struct copy up = {0, in[1]}, down = {out[0], 1};
	pthread_t t;
	pthread_create(&t, 0, copy, &up);
	copy(&down);
	pthread_join(t, 0);
	int status;
	waitpid(pid, &status, 0);
	return 0;
}
