/// Reed–Solomon error correction over GF(256) with the QR polynomial x⁸+x⁴+x³+x²+1.
package enum ReedSolomon {
    /// α^i for i in 0..<255, and the logarithm of each non-zero byte.
    private static let tables: (exp: [UInt8], log: [Int]) = {
        var exp = [UInt8](repeating: 0, count: 255)
        var log = [Int](repeating: 0, count: 256)
        var value = 1
        for power in 0..<255 {
            exp[power] = UInt8(value)
            log[value] = power
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        return (exp, log)
    }()

    package static func multiply(_ left: UInt8, _ right: UInt8) -> UInt8 {
        guard left != 0, right != 0 else { return 0 }
        return tables.exp[(tables.log[Int(left)] + tables.log[Int(right)]) % 255]
    }

    /// The coefficients (highest power first, the leading 1 left out) of (x−α⁰)(x−α¹)…(x−αⁿ⁻¹).
    package static func generator(degree: Int) -> [UInt8] {
        var coefficients = [UInt8](repeating: 0, count: degree)
        coefficients[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for index in 0..<degree {
                coefficients[index] = multiply(coefficients[index], root)
                if index + 1 < degree { coefficients[index] ^= coefficients[index + 1] }
            }
            root = multiply(root, 2)
        }
        return coefficients
    }

    /// The `degree` error correction codewords of `data`: the remainder of data·xⁿ divided by the generator.
    package static func remainder(of data: [UInt8], degree: Int) -> [UInt8] {
        let divisor = generator(degree: degree)
        var result = [UInt8](repeating: 0, count: degree)
        for byte in data {
            let factor = byte ^ result.removeFirst()
            result.append(0)
            for index in 0..<degree { result[index] ^= multiply(divisor[index], factor) }
        }
        return result
    }
}
