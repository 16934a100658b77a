/// The marks that tell sessions apart in a chat watching several (issue 17 point 3): each
/// session takes one when it is made and keeps it for its lifetime, saved with it.
package enum SessionMarker {
    /// Coloured shapes that read the same on every messenger and in a terminal.
    package static let palette = ["🔵", "🟢", "🟠", "🟣", "🔴", "🟡", "🟤", "⚫", "⚪", "🔷", "🔶", "🟩", "🟦", "🟧", "🟪", "🟥", "🟨", "🟫"]

    /// The first mark no live session has; once all are taken, the least used.
    package static func next(taken: [String]) -> String {
        if let free = palette.first(where: { !taken.contains($0) }) { return free }
        return palette.min { mark, other in taken.count { $0 == mark } < taken.count { $0 == other } } ?? palette[0]
    }
}
