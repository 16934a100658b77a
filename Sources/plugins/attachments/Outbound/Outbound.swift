import PiRelaySDK

/// `attachments.outbound`: a workspace file the agent or user wants to send to the chat.
struct Outbound: Sendable {
    let spoolDir: String

    func run(_ params: JSONValue) async throws(RemoteError) -> JSONValue {
        guard let cwd = params["cwd"]?.stringValue, cwd.hasPrefix("/") else {
            throw .invalidParams("attachments.outbound needs `cwd`, the session's folder, as an absolute path")
        }
        guard let path = params["path"]?.stringValue, !path.isEmpty else {
            throw .invalidParams("attachments.outbound needs `path`, the file to send")
        }
        guard let maxBytes = params["maxBytes"]?.intValue, maxBytes > 0 else {
            throw .invalidParams("attachments.outbound needs `maxBytes`, the chat's upload limit, as a positive number")
        }
        guard !cwd.contains("\0"), !path.contains("\0") else {
            throw .invalidParams("a path cannot contain a NUL character")
        }
        let spoolDir = spoolDir
        let outcome = await DedicatedThread.run("attachments-outbound") { () -> Result<JSONValue, RemoteError> in
            switch PathGuard(cwd: cwd).open(path, maxBytes: maxBytes) {
            case .failure(let error): return .failure(error)
            case .success(let file):
                return SpoolCopy.copy(file, into: spoolDir, maxBytes: maxBytes).map { copy in
                    // A name from the workspace is shown in the chat: cleaned as a chat's names are,
                    // so a line break or a direction override in it forges nothing.
                    AttachmentsOutboundResult(
                        path: copy.path, filename: DisplayName.clean(file.name, fallbackFrom: "file"), size: copy.size,
                        mimeType: MediaType.of(name: file.name, head: copy.head)
                    ).json
                }
            }
        }
        return try outcome.get()
    }
}
