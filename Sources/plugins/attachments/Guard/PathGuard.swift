import FoundationEssentials
import PiRelaySDK

#if canImport(Glibc)
import Glibc
#endif

/// Decides whether a file may leave the machine as a chat upload: it must resolve (symlinks
/// included) inside the session's folder, look like no secret before or after resolution, and be a
/// regular file within the chat's size limit. Blocking: call it on a dedicated thread.
struct PathGuard: Sendable {
    let cwd: String
    /// For `~/`, as pi's tools expand it; the plugin's own (pi runs as the same user).
    var home: String? = ProcessInfo.processInfo.environment["HOME"]

    func open(_ written: String, maxBytes: Int) -> Result<GuardedFile, RemoteError> {
        let shown = "`\(written)`"
        let given = Self.asPiReads(written, home: home)
        guard let realCwd = cwd.realPath else {
            return .failure(RemoteError(code: .notFound, message: "the session's folder \(cwd) does not exist"))
        }
        let lexical = Self.normalize(given.hasPrefix("/") ? given : cwd + "/" + given)
        let lexicalCwd = Self.normalize(cwd)
        let base = lexical.isWithin(lexicalCwd) ? lexicalCwd : lexical.isWithin(realCwd) ? realCwd : nil
        guard let base else {
            return .failure(.invalidParams("\(shown) is outside the session's folder \(realCwd); only files inside it can be sent"))
        }
        // Before resolution: the name as asked for, so a harmless-looking symlink target cannot
        // launder `.env`, and `a/../.env` is judged as `.env`.
        let asked = given.hasPrefix("/") ? Self.relative(lexical, to: base) : given
        if let why = SecretPattern.match(asked, in: realCwd) { return .failure(.invalidParams("\(shown) is not sent: \(why)")) }

        guard let resolved = lexical.realPath else {
            switch errno {
            case ENOENT, ENOTDIR:
                return .failure(RemoteError(code: .notFound, message: "there is no file \(shown) in \(realCwd)"))
            case EACCES: return .failure(.invalidParams("\(shown) cannot be read (permission denied)"))
            case ELOOP: return .failure(.invalidParams("\(shown) goes through too many symbolic links"))
            case let errorNumber: return .failure(.invalidParams("\(shown) cannot be used: \(String(cString: strerror(errorNumber)))"))
            }
        }
        guard resolved.isWithin(realCwd) else {
            return .failure(
                .invalidParams("\(shown) leads outside the session's folder \(realCwd) through a symbolic link; only files inside it can be sent"))
        }
        if let why = SecretPattern.match(Self.relative(resolved, to: realCwd), in: realCwd) {
            return .failure(.invalidParams("\(shown) is not sent: \(why)"))
        }

        var st = stat()
        guard stat(resolved, &st) == 0 else {
            return .failure(RemoteError(code: .notFound, message: "there is no file \(shown) in \(realCwd)"))
        }
        if st.st_mode & S_IFMT == S_IFDIR { return .failure(.invalidParams("\(shown) is a folder; only single files can be sent")) }
        guard st.st_mode & S_IFMT == S_IFREG else {
            return .failure(.invalidParams("\(shown) is not a regular file (it is a device, pipe or socket)"))
        }
        if Int(st.st_size) > maxBytes { return .failure(tooBig(shown, Int(st.st_size), maxBytes)) }
        // A hard link has no target to resolve: `ln ~/.ssh/id_rsa notes.txt` in the folder is the
        // key under a harmless name. Which other names a file has cannot be found, so one with any
        // is refused (fails closed); a copy of it can be sent.
        if st.st_nlink > 1 {
            return .failure(
                .invalidParams("\(shown) is not sent: it has other hard links, which may be a file outside the folder or a secret; send a copy of it")
            )
        }

        // O_NOFOLLOW and the checks below catch a file swapped for a symlink or another file
        // between the checks above and this open. O_NONBLOCK keeps a swapped-in FIFO from hanging.
        let fd = Glibc.open(resolved, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == EACCES { return .failure(.invalidParams("\(shown) cannot be read (permission denied)")) }
            return .failure(.invalidParams("\(shown) changed while it was being checked; try again"))
        }
        var opened = stat()
        guard fstat(fd, &opened) == 0, opened.st_dev == st.st_dev, opened.st_ino == st.st_ino,
            opened.st_mode & S_IFMT == S_IFREG, opened.st_nlink <= 1, Self.pathOfDescriptor(fd).map({ $0 == resolved }) ?? true
        else {
            close(fd)
            return .failure(.invalidParams("\(shown) changed while it was being checked; try again"))
        }
        if Int(opened.st_size) > maxBytes {
            close(fd)
            return .failure(tooBig(shown, Int(opened.st_size), maxBytes))
        }
        // Telegram refuses an empty file and Slack's upload drops it without a word.
        if opened.st_size == 0 {
            close(fd)
            return .failure(.invalidParams("\(shown) is empty: there is nothing to send"))
        }
        let name = lexical.split(separator: "/").last.map(String.init) ?? "file"
        return .success(GuardedFile(fd: fd, path: resolved, name: name, size: Int(opened.st_size)))
    }

    private func tooBig(_ shown: String, _ size: Int, _ limit: Int) -> RemoteError {
        .invalidParams("\(shown) is \(ByteCount.describe(size)), over this chat's upload limit of \(ByteCount.describe(limit))")
    }

    /// Where an open descriptor really points, from /proc; nil where /proc is not mounted.
    private static func pathOfDescriptor(_ fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A path as pi's own tools read it (pi-extension-api.md §11, trap 13): one leading `@`
    /// dropped, the Unicode spaces models write turned into plain ones, `~` and `~/` expanded. A
    /// model used to pi's tools names files so (`@out/chart.png`) for ours too.
    static func asPiReads(_ written: String, home: String?) -> String {
        var path = String(written.hasPrefix("@") ? written.dropFirst() : written[...])
        let spaces: Set<UInt32> = [0x00A0, 0x202F, 0x205F, 0x3000]
        path = String(
            String.UnicodeScalarView(
                path.unicodeScalars.map { spaces.contains($0.value) || (0x2000...0x200A).contains($0.value) ? " " : $0 }))
        guard let home, !home.isEmpty else { return path }
        return path.expandingTilde(home: home)
    }

    /// Resolves `.` and `..` textually, without touching the file system.
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    private static func relative(_ path: String, to folder: String) -> String {
        path == folder ? "" : String(path.dropFirst(folder == "/" ? 1 : folder.count + 1))
    }
}
