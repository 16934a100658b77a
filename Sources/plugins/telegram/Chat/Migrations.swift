import PiRelaySDK

/// Groups upgraded to supergroups: Telegram gives the group a new id and refuses the old one
/// (400 with `migrate_to_chat_id`). Each move is remembered (saved), so everything sent to the
/// old id goes to the new one, and the supervisor is asked once to bind the new id to the
/// session the old one watched.
actor Migrations {
    static let file = "migrations.json"
    private var moves: [String: String]
    private var rebound: Set<String> = []
    /// Who upgraded each moved group (from the service message), on whose behalf the new id is
    /// bound: the supervisor binds chats for allowlisted users only.
    private var movers: [String: String] = [:]
    /// Messages the bot posted in a group's new id since this process learnt of its move, by
    /// `chat:message`. Another message of a group that moved while this process ran is in the
    /// old chat, which takes no edit (a message id is the chat's own): it goes on as a new
    /// message without first trying an edit Telegram answers "message to edit not found". Not
    /// saved: for a move learnt before a restart the edit is tried, and only its refusal sends
    /// it anew (a message already in the new chat is edited there, not posted again).
    private var postedSinceMove: Set<String> = []
    /// The old ids whose move this process learnt.
    private var movedHere: Set<String> = []
    private let store: StateStore

    init(store: StateStore) {
        self.store = store
        moves = store.load([String: String].self, from: Self.file) ?? [:]
    }

    /// Where a chat lives now (itself, unless it moved).
    func current(_ chat: String) -> String {
        var id = chat
        var hops = 0
        while let next = moves[id], hops < 8 {
            id = next
            hops += 1
        }
        return id
    }

    func moved(_ old: String, to new: String, by user: String? = nil) async {
        if let user, !user.isEmpty { movers[old] = user }
        guard moves[old] != new else { return }
        movedHere.insert(old)
        moves[old] = new
        await store.save(moves, to: Self.file)
    }

    /// A message posted in `chat` (its current id) as asked for `asked`, an older id of it.
    func posted(_ message: Int, in chat: String, askedFor asked: String) {
        guard chat != asked, movedHere.contains(asked) else { return }
        // Bounded: a group that moved long ago and still streams would grow it for good.
        if postedSinceMove.count >= 10_000 { postedSinceMove.removeFirst() }
        postedSinceMove.insert("\(chat):\(message)")
    }

    /// Whether `message`, meant for `asked`, is certainly in the old chat of a group whose move
    /// this process learnt.
    func isLeftBehind(_ message: Int, askedFor asked: String) -> Bool {
        let chat = current(asked)
        return chat != asked && movedHere.contains(asked) && !postedSinceMove.contains("\(chat):\(message)")
    }

    /// Once per moved chat, the user to bind its new id on behalf of (nil: nothing to do).
    func rebind(_ chat: String) -> String? {
        guard moves[chat] != nil, rebound.insert(chat).inserted else { return nil }
        return movers[chat] ?? ""
    }
}
