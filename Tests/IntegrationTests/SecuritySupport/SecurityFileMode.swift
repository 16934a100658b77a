import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Modes and owners of what lies in a test home, as `lstat` sees them.
struct SecurityFileMode: CustomStringConvertible {
    let path: String
    let mode: mode_t
    let owner: uid_t

    init?(_ path: String) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        self.path = path
        mode = st.st_mode
        owner = st.st_uid
    }

    var kind: mode_t { mode & S_IFMT }
    var permissions: mode_t { mode & 0o7777 }
    /// True when group or others have any permission at all.
    var isOpenToOthers: Bool { permissions & 0o077 != 0 }

    var description: String { "\(path) (mode \(String(permissions, radix: 8)), uid \(owner))" }

    /// Everything under `root`, depth first, without following symbolic links.
    static func walk(_ root: String) -> [SecurityFileMode] {
        var out: [SecurityFileMode] = []
        guard let top = SecurityFileMode(root) else { return out }
        out.append(top)
        guard top.kind == S_IFDIR else { return out }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()
        for name in names { out += walk(root + "/" + name) }
        return out
    }
}
