/// A file the loader read (config.yaml or .env), with the ownership and permissions that decide
/// whether it may be trusted with secrets.
package struct ConfigFile: Sendable, Equatable {
    package let path: String
    package let bytes: [UInt8]
    /// Permission bits only (`0o644`), without the file type.
    package let permissions: UInt32
    package let owner: UInt32

    package init(path: String, bytes: [UInt8], permissions: UInt32, owner: UInt32) {
        self.path = path
        self.bytes = bytes
        self.permissions = permissions
        self.owner = owner
    }

    /// Larger than any real config; stops a wrong path (a log, a disk image) from being slurped.
    package static let maximumSize = 1 << 20

    /// Four octal digits, as `ls -l` users and chmod know them: `0644`.
    package var modeText: String {
        let digits = String(permissions, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
