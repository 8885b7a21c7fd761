/// Turns a tokenizer's token text into the exact bytes the token stands for.
struct TokenTextDecoder {
    private let isByteLevel: Bool
    /// GPT-2's printable stand-in for each byte, inverted: unicode scalar value → byte.
    private let unicodeToByte: [UInt32: UInt8]

    init(model: String) {
        isByteLevel = model == "gpt2"
        var table: [UInt32: UInt8] = [:]
        if isByteLevel {
            var extra: UInt32 = 0
            for byte in 0...255 {
                let printable = (33...126).contains(byte) || (161...172).contains(byte) || (174...255).contains(byte)
                if printable {
                    table[UInt32(byte)] = UInt8(byte)
                } else {
                    table[256 + extra] = UInt8(byte)
                    extra += 1
                }
            }
        }
        unicodeToByte = table
    }

    func bytes(of text: String, isByteToken: Bool) -> [UInt8] {
        if isByteLevel {
            var result: [UInt8] = []
            result.reserveCapacity(text.unicodeScalars.count)
            for scalar in text.unicodeScalars {
                guard let byte = unicodeToByte[scalar.value] else { return Array(text.utf8) }
                result.append(byte)
            }
            return result
        }
        if isByteToken, text.utf8.count == 6, text.hasPrefix("<0x"), text.hasSuffix(">"),
            let byte = UInt8(text.dropFirst(3).dropLast(), radix: 16)
        {
            return [byte]
        }
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if scalar == "\u{2581}" { result.append(0x20) } else { result.append(contentsOf: String(scalar).utf8) }
        }
        return result
    }
}
