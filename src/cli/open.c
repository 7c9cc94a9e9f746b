/*
 * --open: shows a file a command has written, as samply and
 * cargo-flamegraph do: $BROWSER if set, else xdg-open where there is a
 * display, else its file:// URL on stderr.  The opener runs detached (a
 * session of its own, no terminal, never waited for), so that a browser
 * that stays open does not keep ember from ending.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* file:// and the absolute path, every byte but unreserved ones and '/'
 * percent-encoded (RFC 3986). */
static void file_url(const char *abs, struct ember_buf *b)
{
	static const char hex[] = "0123456789ABCDEF";

	ember_buf_adds(b, "file://");
	for (const unsigned char *p = (const unsigned char *)abs; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/", *p)) {
			ember_buf_addch(b, (char)*p);
		} else {
			ember_buf_addch(b, '%');
			ember_buf_addch(b, hex[*p >> 4]);
			ember_buf_addch(b, hex[*p & 15]);
		}
	}
}

/* Runs argv detached; 0, or the errno of a failed exec. */
static int spawn(char *const argv[])
{
	int fd[2], err = 0;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC))
		return errno;
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(fd[0]);
		close(fd[1]);
		return err;
	}
	if (pid == 0) {
		/* the child forks the opener and ends: nobody waits for it */
		if (fork() == 0) {
			int null = open("/dev/null", O_RDWR);
			setsid();
			if (null >= 0) {
				dup2(null, 0);
				dup2(null, 1);
				dup2(null, 2);
			}
			execvp(argv[0], argv);
			err = errno;
			if (write(fd[1], &err, sizeof(err)) < 0)
				_exit(127);
			_exit(127);
		}
		_exit(0);
	}
	close(fd[1]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	/* the pipe closes at the opener's exec, or brings its errno */
	while (read(fd[0], &err, sizeof(err)) < 0 && errno == EINTR)
		;
	close(fd[0]);
	return err;
}

void cli_open(const char *path)
{
	struct ember_buf url = EMBER_BUF_INIT;
	char *abs = realpath(path, NULL);
	const char *browser = getenv("BROWSER");
	const char *display = getenv("DISPLAY");
	const char *wayland = getenv("WAYLAND_DISPLAY");
	const char *what = NULL;
	int err = 0;

	file_url(abs ? abs : path, &url);
	if (browser && *browser) {
		/* words, as a shell splits them ("firefox --new-window") */
		char *const argv[] = {
		    "/bin/sh", "-c",	"exec $BROWSER \"$1\"",
		    "sh",      url.buf, NULL};
		what = browser;
		err = spawn(argv);
	} else if ((display && *display) || (wayland && *wayland)) {
		char *const argv[] = {"xdg-open", url.buf, NULL};
		what = "xdg-open";
		err = spawn(argv);
	}
	if (what && err)
		cli_warn("cannot run '%s': %s", what, strerror(err));
	if (!what || err)
		cli_note("open %s in a browser", url.buf);
	ember_buf_release(&url);
	free(abs);
}

int cli_open_check(const char *cmd, const char *output, int as)
{
	if (!output || !strcmp(output, "-"))
		return cli_usage(cmd, "--open needs a file to open: -o FILE");
	if (as != CLI_SVG && as != CLI_HTML)
		return cli_usage(cmd, "--open opens a flame graph: -o FILE.svg "
				      "or FILE.html (or --format svg|html)");
	return 0;
}
