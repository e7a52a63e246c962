package import Platform

/// The account pages' paths, in one place: the route table (`AccountPages.boot`) registers them;
/// the shared header, other features' sign-in links and the account forms fill them in.
package enum AccountPath {
    package static let signUp = SitePath.signUp
    package static let logIn = SitePath.logIn
    static let logOut: PagePath = "/logout"
    package static let me = SitePath.me
    package static let profile: PagePath = "/me/profile"
    package static let photo: PagePath = "/me/photo"
    static let photoDelete: PagePath = "/me/photo/delete"
    package static let password: PagePath = "/me/password"
    package static let withdraw: PagePath = "/me/withdraw"
    static let endDevice: PagePath = "/me/devices/sign-out"
    static let email: PagePath = "/me/email"
    /// The new address's link (`?token=…`).
    static let confirmEmail: PagePath = "/confirm-email"
    /// The old address's link (`?token=…`).
    static let undoEmail: PagePath = "/undo-email"
    static let signOutOthers: PagePath = "/me/devices/sign-out-others"
    package static let language: PagePath = "/language"
    package static let forgotPassword: PagePath = "/forgot-password"
    /// "Forgot password" by a code to the verified phone, where one can be sent.
    package static let forgotPasswordByPhone: PagePath = "/forgot-password/phone"
    static let resetPasswordByPhone: PagePath = "/forgot-password/phone/confirm"
    /// The page a reset mail links to (`?token=…`).
    package static let resetPassword: PagePath = "/reset-password"
}
