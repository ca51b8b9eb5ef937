/// Which token a URI names: its label, and its serial number, manufacturer and model when the URI gives them.
struct PKCS11TokenSelector: CustomStringConvertible {
    let label: String
    var serial: String? = nil
    var manufacturer: String? = nil
    var model: String? = nil

    /// Whether a token with these fields (from `C_GetTokenInfo`, padding removed) is the one named.
    func matches(label: String, serial: String, manufacturer: String, model: String) -> Bool {
        label == self.label && (self.serial.map { $0 == serial } ?? true)
            && (self.manufacturer.map { $0 == manufacturer } ?? true) && (self.model.map { $0 == model } ?? true)
    }

    /// `labelled 'securepush'`, with `serial '…'` and the others when given: how errors name the token.
    var description: String {
        var text = "labelled '\(label)'"
        if let serial { text += " with serial '\(serial)'" }
        if let manufacturer { text += " by '\(manufacturer)'" }
        if let model { text += " model '\(model)'" }
        return text
    }
}
