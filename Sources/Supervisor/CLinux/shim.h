#include <sys/epoll.h>
#include <spawn.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

// glibc 2.29 and 2.34 extensions, declared by <spawn.h> only under _GNU_SOURCE.
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *__restrict actions, const char *__restrict path);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

// posix_spawnattr_setflags: start the child in a new session (glibc 2.26, also GNU only).
static const short pi_relayd_spawn_setsid = 0x80;

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 // the same number on every architecture
#endif

// pidfd_open(2) (Linux 5.3) has no glibc wrapper before 2.36, and syscall(2) is variadic.
static inline int pi_relayd_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

#include <sys/socket.h>

// struct ucred and SO_PEERCRED are declared only under _GNU_SOURCE, which Swift's Glibc module
// does not set; the layout is fixed by the kernel (pid, uid, gid).
struct pi_relayd_ucred { pid_t pid; uid_t uid; gid_t gid; };
#ifndef SO_PEERCRED
#define SO_PEERCRED 17
#endif

// The peer of a connected Unix socket, as the kernel recorded it at connect(2).
static inline int pi_relayd_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct pi_relayd_ucred credentials;
    socklen_t size = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}
