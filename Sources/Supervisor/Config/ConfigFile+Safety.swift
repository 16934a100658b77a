extension ConfigFile {
    /// Someone else's file could start programs as us (`pi.command`) or feed us their secrets, so
    /// it is never read, whatever it contains.
    package func checkOwner(userID: UInt32) throws(ConfigError) {
        guard owner != userID else { return }
        throw ConfigError(
            .unsafeFile, file: path,
            """
            refusing to read \(path): it belongs to another user (uid \(owner), pi-relayd runs as uid \(userID)); \
            run: sudo chown \(userID) \(path)
            """)
    }

    /// config.yaml names the programs pi-relayd starts (`pi.command`, a plugin's settings), so
    /// someone who may write it may run code as us, as with a plugin file they may write.
    package func checkNotWritableByOthers() throws(ConfigError) {
        guard permissions & 0o022 != 0 else { return }
        throw ConfigError(
            .unsafeFile, file: path,
            """
            refusing to read \(path): it is writable by group or others (mode \(modeText)), who could make \
            pi-relayd run their programs; run: chmod go-w \(path)
            """)
    }

    /// A file holding secrets must be private to its owner. `why` is added after the path when the
    /// reason is not obvious (config.yaml), e.g. "it holds a secret (discord.token at line 4)".
    package func checkPrivate(why: String? = nil, otherFix: String? = nil) throws(ConfigError) {
        guard permissions & 0o077 != 0 else { return }
        let access = permissions & 0o044 != 0 ? "readable" : permissions & 0o022 != 0 ? "writable" : "accessible"
        var message = "refusing to read \(path): "
        if let why { message += why + " and " }
        message += "it is \(access) by group or others (mode \(modeText)); run: chmod 600 \(path)"
        if let otherFix { message += " (\(otherFix))" }
        throw ConfigError(.unsafeFile, file: path, message)
    }
}
