import PiRelaySDK

/// Files posted to a page (a long answer's `.md`), served by an unguessable token and only from
/// the spool folder, where pi-relayd puts every file it posts.
actor Downloads {
    static let keep = 200

    private let spoolDir: String
    private var files: [String: (path: String, name: String)] = [:]
    private var order: [String] = []

    init(spoolDir: String) {
        self.spoolDir = spoolDir.standardizedPath
    }

    /// The file's link for a page, or just its name when it is not in the spool folder.
    func offer(_ file: PostedFile) -> JSONValue {
        guard file.path.standardizedPath.isWithin(spoolDir), file.path.standardizedPath != spoolDir else { return ["name": .string(file.filename)] }
        let token = RandomName.hex(bytes: 16)
        files[token] = (file.path, file.filename)
        order.append(token)
        if order.count > Self.keep { files[order.removeFirst()] = nil }
        return ["name": .string(file.filename), "url": .string("/files/" + token)]
    }

    func file(_ token: String) -> (path: String, name: String)? { files[token] }
}
