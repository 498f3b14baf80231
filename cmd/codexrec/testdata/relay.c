/* relay.c is the floor for any stdio proxy at all: a thread per direction, each a
 * blocking read(2) and write(2) loop, nothing else. BenchmarkRoundTrip builds it when
 * a C compiler is at hand. */
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

struct copy { int from, to; };

static void *copy(void *arg) {
	struct copy *c = arg;
	static __thread char buf[65536];
	for (;;) {
		ssize_t n = read(c->from, buf, sizeof buf);
		if (n <= 0) break;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(c->to, buf + off, n - off);
			if (w <= 0) return 0;
			off += w;
		}
	}
	close(c->to);
	return 0;
}

int main(int argc, char **argv) {
	int in[2], out[2];
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
	int status;
	waitpid(pid, &status, 0);
	return 0;
}
