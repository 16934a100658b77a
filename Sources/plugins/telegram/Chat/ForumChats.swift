/// The supergroups seen to be forums (`is_forum` on their messages), where sessions get topics.
actor ForumChats {
    private var forums: Set<String> = []

    func saw(_ message: TelegramMessage) {
        if message.isForum { forums.insert(message.chatID) } else { forums.remove(message.chatID) }
    }

    func isForum(_ chat: String) -> Bool { forums.contains(chat) }
}
