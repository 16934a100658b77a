/// Path arithmetic on plain strings, as NSString's path methods did (they are not in
/// FoundationEssentials). Purely lexical: nothing here touches the file system.
extension String {
    /// The path without its last component: `/a/b` → `/a`, `/a` → `/`, `a` → ``.
    package var parentPath: String {
        var path = self
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The last component's extension, without the dot; empty when it has none (or only a
    /// leading dot, as `.bashrc`).
    package var fileExtension: String {
        let name = split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// `~` and `~/…` with the user's home folder in front; any other path as it is.
    package var expandingTilde: String { expandingTilde(home: UserFolders.home) }

    /// The same with `home` as the home folder.
    package func expandingTilde(home: String) -> String {
        if self == "~" { return home }
        if hasPrefix("~/") { return home + dropFirst() }
        return self
    }

    /// The tilde expanded, empty and `.` components dropped, and in an absolute path each `..`
    /// taken with the component before it (never above `/`).
    package var standardizedPath: String {
        let path = expandingTilde
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." && absolute {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : joined
    }
}
