import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

extension Doctor {
    /// Owner-only modes on what holds secrets and conversations; owned by this user.
    package func fileChecks() -> [DoctorCheck] {
        var checks: [DoctorCheck] = []
        let wanted: [(path: String, label: String, mode: mode_t, required: Bool)] = [
            (home.root, "home", 0o700, true), (home.dotenvFile, ".env", 0o600, false), (home.root + "/config.yaml", "config.yaml", 0o600, false),
            (home.stateDir, "state folder", 0o700, false), (home.socketPath, "control socket", 0o600, false),
        ]
        for item in wanted {
            var info = stat()
            // Followed, as pi-relayd reads them: a .env linked to a private file is private.
            guard stat(item.path, &info) == 0 else {
                if item.required {
                    checks.append(
                        .fail(
                            "mode:\(item.label)", "\(item.label) mode", "\(item.path) does not exist",
                            fix: "pi-relayd setup discord (or start) creates it"))
                }
                continue
            }
            let mode = info.st_mode & 0o777
            if info.st_uid != getuid() {
                checks.append(
                    .fail(
                        "mode:\(item.label)", "\(item.label) mode", "\(item.path) belongs to uid \(info.st_uid), not you",
                        fix: "chown \(getuid()) \(item.path)"))
            } else if item.label == "config.yaml", mode & 0o022 == 0, mode & 0o044 != 0 {
                // What the loader takes: one with no secret in it may be read by others (one with a
                // secret fails to load, in the config check).
                checks.append(
                    .pass(
                        "mode:\(item.label)", "\(item.label) mode",
                        "\(item.path) is \(String(mode, radix: 8)): readable by others, so keep secrets in .env (600 is safer: chmod 600 \(item.path))"
                    ))
            } else if mode & 0o077 != 0 {
                checks.append(
                    .fail(
                        "mode:\(item.label)", "\(item.label) mode", "\(item.path) is \(String(mode, radix: 8)): others can reach it",
                        fix: "chmod \(String(item.mode, radix: 8)) \(item.path)"))
            } else {
                checks.append(.pass("mode:\(item.label)", "\(item.label) mode", "\(item.path) is \(String(mode, radix: 8))"))
            }
        }
        return checks
    }

    /// Free space where the home is.
    package func diskCheck() -> DoctorCheck {
        var info = statvfs()
        let probePath = FileManager.default.fileExists(atPath: home.root) ? home.root : home.root.parentPath
        guard statvfs(probePath, &info) == 0 else {
            return .fail("disk", "free disk space", "cannot read the free space of \(probePath)", fix: "check that \(probePath) exists")
        }
        let free = UInt64(info.f_bavail) * UInt64(info.f_frsize)
        let shown = "\(free >> 20) MB free where \(home.root) is"
        guard free >= minimumFreeBytes else {
            return .fail(
                "disk", "free disk space", shown + " (under \(minimumFreeBytes >> 20) MB)",
                fix: "free some space: sessions, logs and outboxes are written there and a full disk stops saving them")
        }
        return .pass("disk", "free disk space", shown)
    }
}
