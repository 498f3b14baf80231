/* relay.c is the floor for any stdio proxy at all: one thread, poll(2), read and
 * write, nothing else. BenchmarkRoundTrip builds it when a C compiler is at hand. */
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

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
	static char buf[65536];
	struct pollfd fds[2] = {{0, POLLIN, 0}, {out[0], POLLIN, 0}};
	for (;;) {
		if (poll(fds, 2, -1) < 0) break;
		if (fds[0].revents) {
			ssize_t n = read(0, buf, sizeof buf);
			if (n <= 0) { close(in[1]); fds[0].fd = -1; }
			else if (write(in[1], buf, n) != n) break;
		}
		if (fds[1].revents) {
			ssize_t n = read(out[0], buf, sizeof buf);
			if (n <= 0) break;
			if (write(1, buf, n) != n) break;
		}
	}
	int status;
	waitpid(pid, &status, 0);
	return 0;
}
