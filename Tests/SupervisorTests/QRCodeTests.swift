import Testing

@testable import Supervisor

/// The QR encoder against matrices made by an independent encoder (QRVectors.swift), module for
/// module, across versions with one block, several blocks, blocks of two lengths, version
/// information (7+) and the 16-bit count (10).
@Suite struct QRCodeTests {
    @Test(arguments: QRVectors.cases.indices)
    func matchesAKnownGoodMatrix(_ index: Int) throws {
        let known = QRVectors.cases[index]
        let code = try QRCode(bytes: Array(known.text.utf8), mask: known.mask)
        #expect(code.version.number == known.version)
        let rows = code.modules.map { String($0.map { $0 ? "#" : "." }) }
        #expect(rows.count == known.rows.count)
        for (number, (row, expected)) in zip(rows, known.rows).enumerated() {
            #expect(row == expected, "version \(known.version) mask \(known.mask), row \(number)")
        }
    }

    @Test func theErrorCorrectionOfAKnownBlock() {
        // ISO/IEC 18004 Annex I: "01234567" at version 1-M has these 16 data codewords and
        // these 10 error correction codewords.
        let data: [UInt8] = [
            0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11,
        ]
        #expect(ReedSolomon.remainder(of: data, degree: 10) == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
    }

    @Test func theChosenMaskHasTheLowestPenaltyAndItsFormatBits() throws {
        let code = try QRCode(bytes: Array("https://t.me/pi_relay_bot?start=K7QM3XPA9T".utf8))
        let penalties = try (0..<8).map {
            QRCode.penalty(try QRCode(bytes: Array("https://t.me/pi_relay_bot?start=K7QM3XPA9T".utf8), mask: $0).modules)
        }
        #expect(QRCode.penalty(code.modules) == penalties.min())
        let fixed = try QRCode(bytes: Array("https://t.me/pi_relay_bot?start=K7QM3XPA9T".utf8), mask: code.mask)
        #expect(fixed.modules == code.modules)
    }

    @Test func tooMuchIsRefused() {
        #expect(throws: QRCode.TooLong.self) { try QRCode(bytes: [UInt8](repeating: 0x41, count: 214)) }
        #expect((try? QRCode(bytes: [UInt8](repeating: 0x41, count: 213)))?.version.number == 10)
    }

    @Test func theTerminalDrawingHasAQuietZoneAndTwoRowsALine() throws {
        let code = try QRCode(bytes: Array("pi".utf8), mask: 0)
        let lines = code.terminalText().split(separator: "\n").map(String.init)
        // 21 modules plus 4 on each side: 29 columns, 15 lines of two module rows.
        #expect(lines.count == 15)
        #expect(lines.allSatisfy { $0.count == 29 })
        #expect(lines[0] == String(repeating: "█", count: 29))
        // Drawing rows 4 and 5 are the code's first two: the finder's dark top edge over its
        // light inside, the light separator beside it.
        #expect(lines[2].hasPrefix("████ ▄▄▄▄▄ █"))
    }
}
