import Platform

/// The account pages' paths, in one place: the shared header, other features' sign-in links and the
/// account forms use these. (The route table in `AccountPages.boot` names the same paths.)
package enum AccountPath {
    package static let signUp = "/signup"
    package static let logIn = "/login"
    package static let logOut = "/logout"
    package static let me = "/me"
    package static let profile = "/me/profile"
    package static let photo = "/me/photo"
    package static let photoDelete = "/me/photo/delete"
    package static let withdraw = "/me/withdraw"
    package static let language = "/language"
}
