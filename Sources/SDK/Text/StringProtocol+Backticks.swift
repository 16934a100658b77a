extension StringProtocol {
    /// The longest run of backticks in the text: a markdown code span or block around it needs a
    /// fence one longer, so nothing inside can close it early.
    package var longestBacktickRun: Int {
        var longest = 0
        var run = 0
        for byte in utf8 {
            if byte == UInt8(ascii: "`") {
                run += 1
                longest = Swift.max(longest, run)
            } else {
                run = 0
            }
        }
        return longest
    }
}
