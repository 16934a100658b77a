import Testing

@testable import WebPlugin

/// The `Date` header in RFC 9110's fixed form, for dates whose text is known.
@Suite struct HTTPDateTests {
    @Test func knownDatesReadAsRFC9110Says() {
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        // RFC 9110 §5.6.7's own example.
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        // A leap day, the last second of a year, and this project's time.
        #expect(HTTPDate.format(951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(1_767_225_599) == "Wed, 31 Dec 2025 23:59:59 GMT")
        #expect(HTTPDate.format(1_795_878_000) == "Sat, 28 Nov 2026 15:00:00 GMT")
    }

    @Test func aSecondsTextIsMadeOnce() {
        let dates = HTTPDate()
        #expect(dates.text(at: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(dates.text(at: 784_111_778) == "Sun, 06 Nov 1994 08:49:38 GMT")
        #expect(dates.now().hasSuffix(" GMT"))
    }
}
