#if canImport(Glibc)
import Glibc
#endif

/// The folders a page may start sessions in: `web.roots` and what is under them, after
/// symbolic links and `..` are resolved, so a link inside a root cannot lead out of it.
struct FolderRoots: Sendable {
    let roots: [String]

    init(_ roots: [String]) { self.roots = roots.compactMap(\.realPath) }

    /// The real path of `path` when it is an existing folder inside a root; nil otherwise.
    func resolve(_ path: String) -> String? {
        guard path.hasPrefix("/"), let real = path.realPath else { return nil }
        var info = stat()
        guard stat(real, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        return roots.contains { real.isWithin($0) } ? real : nil
    }
}
