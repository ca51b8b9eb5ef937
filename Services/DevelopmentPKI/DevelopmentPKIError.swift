/// Why a development certificate could not be made or loaded.
public struct DevelopmentPKIError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for a person.
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}
