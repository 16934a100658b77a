import PiRelaySDK

/// One attachment of an `attachments.inbound` request, as the messenger described it.
struct InboundItem: Sendable, Equatable {
    /// nil when the messenger gave neither a usable `url` nor an absolute `path`.
    let source: ItemSource?
    let name: String
    let declaredSize: Int?
    let declaredType: String?
    /// The messenger says it is a voice note.
    var voice = false
    /// How long it plays, if the messenger says.
    var seconds: Int?

    init(source: ItemSource?, name: String, declaredSize: Int? = nil, declaredType: String? = nil, voice: Bool = false, seconds: Int? = nil) {
        self.source = source
        self.name = name
        self.declaredSize = declaredSize
        self.declaredType = declaredType
        self.voice = voice
        self.seconds = seconds
    }

    init(_ ref: AttachmentRef) {
        let url = ref.url.flatMap { $0.isEmpty ? nil : $0 }
        // A relative path would be resolved against the plugin's state folder, which means nothing
        // to the person at the terminal, so only absolute paths are accepted.
        let path = ref.path.flatMap { $0.hasPrefix("/") && !$0.contains("\0") ? $0 : nil }
        source = url.map(ItemSource.url) ?? path.map(ItemSource.path)
        name = DisplayName.clean(ref.filename.isEmpty ? nil : ref.filename, fallbackFrom: url ?? path ?? "")
        declaredSize = ref.size
        declaredType = ref.contentType
        voice = ref.voice
        seconds = ref.seconds
    }
}
