/// The supergroups seen to be forums (`is_forum` on their messages), where sessions get topics.
actor ForumChats {
    private var forums: Set<String> = []

    func saw(_ message: TelegramMessage) {
        if message.chat.isForum { forums.insert(message.chat.id) } else { forums.remove(message.chat.id) }
    }

    func isForum(_ chat: String) -> Bool { forums.contains(chat) }
}
