/// The account pages' paths, in one place: the shared header, other features' sign-in links and the
/// account forms use these. (The route table in `AccountPages.boot` names the same paths.)
enum AccountPath {
    static let signUp = "/signup"
    static let logIn = "/login"
    static let logOut = "/logout"
    static let me = "/me"
    static let profile = "/me/profile"
    static let photo = "/me/photo"
    static let photoDelete = "/me/photo/delete"
    static let withdraw = "/me/withdraw"
    static let language = "/language"
}
