import Testing

@testable import Supervisor

/// Rule patterns that JavaScript (pi's extension runs the gates) reads as Swift does pass; the
/// ones it reads another way are refused with the reason, or the rule would never fire.
@Suite struct JavaScriptPatternTests {
    @Test(arguments: [
        #"rm\s+-(rf|fr)\b"#, #"git\s+push"#, #"(curl|wget)[^|]*\|\s*(ba|z)?sh"#, #"\0"#, #"\cJ"#, #"[\b]"#, #"[\c1]"#,
        #"(?<verb>push)\k<verb>"#, #"x}+"#, #"a{2,3}"#, #"\x41\u0042"#, #"a+?"#, #"[+*?]+"#,
    ])
    func readTheSame(_ pattern: String) {
        #expect(JavaScriptPattern.problem(pattern) == nil, "\(pattern)")
    }

    @Test(arguments: [
        (#"git\s+push\z"#, "\\z is the letter z"), (#"\Arm"#, "\\A is the letter A"), (#"rm\h+"#, "\\h is the letter h"),
        (#"\p{L}"#, "\\p is the letter p"), (#"\Qa.b\E"#, "\\Q is the letter Q"), ("(?i)rm", "(?i… is not a group"),
        ("rm a++", "possessive"), ("a{2}+", "possessive"), ("git[[:space:]]+push", "POSIX class"), (#"a\vb"#, "vertical tab"),
        ("a{,3}", "{,n} is plain text"), ("[]a]", "empty class"), ("[^]a]", "empty class"), ("[^]]", "empty class"),
    ])
    func readAnotherWay(_ pattern: String, _ reason: String) {
        let problem = JavaScriptPattern.problem(pattern)
        #expect(problem?.contains(reason) == true, "\(pattern): \(String(describing: problem))")
    }
}
