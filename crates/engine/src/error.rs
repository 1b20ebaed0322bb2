//! The one error type of the engine. Every error carries a [`SqlState`]; the server turns it
//! into an ErrorResponse one-to-one, the embedded API returns it as a value.

use std::fmt;

/// PostgreSQL's SQLSTATE codes that KestrelDB raises. Each variant maps to exactly one code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqlState {
    SuccessfulCompletion,
    Warning,
    NoActiveSqlTransaction,
    ActiveSqlTransaction,
    InvalidSavepointSpecification,
    FeatureNotSupported,
    CardinalityViolation,
    DataException,
    StringDataRightTruncation,
    NumericValueOutOfRange,
    SequenceGeneratorLimitExceeded,
    ObjectNotInPrerequisiteState,
    GeneratedAlways,
    InvalidTextRepresentation,
    UntranslatableCharacter,
    InvalidDatetimeFormat,
    DatetimeFieldOverflow,
    IntervalFieldOverflow,
    DivisionByZero,
    InvalidParameterValue,
    InvalidPrecedingOrFollowingSize,
    InvalidArgumentForNtile,
    InvalidArgumentForNthValue,
    InvalidRowCountInLimitClause,
    InvalidRowCountInResultOffsetClause,
    InvalidBinaryRepresentation,
    BadCopyFileFormat,
    CharacterNotInRepertoire,
    InvalidEscapeSequence,
    InvalidUseOfEscapeCharacter,
    SubstringError,
    ArraySubscriptError,
    NullValueNotAllowed,
    InvalidRegularExpression,
    InvalidArgumentForLogarithm,
    InvalidArgumentForPowerFunction,
    InvalidArgumentForWidthBucketFunction,
    NotNullViolation,
    UniqueViolation,
    CheckViolation,
    ForeignKeyViolation,
    InvalidTransactionState,
    InFailedSqlTransaction,
    SyntaxError,
    UndefinedColumn,
    UndefinedTable,
    UndefinedFunction,
    AmbiguousFunction,
    UndefinedObject,
    UndefinedParameter,
    DuplicateColumn,
    DuplicateTable,
    DuplicateSchema,
    ReservedName,
    InsufficientPrivilege,
    DuplicateObject,
    DuplicateAlias,
    AmbiguousColumn,
    DatatypeMismatch,
    CannotCoerce,
    GroupingError,
    WindowingError,
    InvalidColumnReference,
    InvalidTableDefinition,
    InvalidForeignKey,
    InvalidObjectDefinition,
    DependentObjectsStillExist,
    WrongObjectType,
    InvalidSchemaName,
    InvalidName,
    /// An identifier longer than NAMEDATALEN - 1 bytes, truncated (a NOTICE's state).
    NameTooLong,
    IndeterminateDatatype,
    InvalidRecursion,
    ProtocolViolation,
    InvalidPreparedStatementDefinition,
    DuplicatePreparedStatement,
    InvalidCursorName,
    InvalidSqlStatementName,
    SerializationFailure,
    DeadlockDetected,
    LockNotAvailable,
    QueryCanceled,
    ProgramLimitExceeded,
    StatementTooComplex,
    TooManyArguments,
    TooManyColumns,
    TooManyConnections,
    InvalidAuthorizationSpecification,
    DiskFull,
    ObjectInUse,
    IoError,
    UndefinedFile,
    DataCorrupted,
    ReadOnlySqlTransaction,
    CantChangeRuntimeParam,
    InternalError,
    IdleInTransactionSessionTimeout,
    IdleSessionTimeout,
    OutOfMemory,
    DuplicateCursor,
    // SQL/JSON path errors (jsonpath).
    SqlJsonMemberNotFound,
    SqlJsonObjectNotFound,
    SqlJsonArrayNotFound,
    SqlJsonNumberNotFound,
    NonNumericSqlJsonItem,
    SingletonSqlJsonItemRequired,
    InvalidSqlJsonSubscript,
    /// An enum label added by the transaction to a type it did not create.
    UnsafeNewEnumValueUsage,
    StringDataLengthMismatch,
    /// A GRANT of a role that would make a membership cycle.
    InvalidGrantOperation,
    /// A wrong password (28P01).
    InvalidPassword,
    /// A row written through a view WITH CHECK OPTION that the view would not show.
    WithCheckOptionViolation,
    DuplicateFunction,
    InvalidFunctionDefinition,
    /// A database that does not exist (3D000).
    InvalidCatalogName,
    /// A foreign-data wrapper option it does not know (file_fdw's validator).
    FdwInvalidOptionName,
    /// A foreign table without an option its wrapper needs (file_fdw's filename).
    FdwDynamicParameterValueNeeded,
}

impl SqlState {
    /// The five-character SQLSTATE code.
    pub fn code(self) -> &'static str {
        match self {
            SqlState::SuccessfulCompletion => "00000",
            SqlState::Warning => "01000",
            SqlState::NoActiveSqlTransaction => "25P01",
            SqlState::ActiveSqlTransaction => "25001",
            SqlState::InvalidSavepointSpecification => "3B001",
            SqlState::FeatureNotSupported => "0A000",
            SqlState::CardinalityViolation => "21000",
            SqlState::DataException => "22000",
            SqlState::StringDataRightTruncation => "22001",
            SqlState::NumericValueOutOfRange => "22003",
            SqlState::SequenceGeneratorLimitExceeded => "2200H",
            SqlState::ObjectNotInPrerequisiteState => "55000",
            SqlState::GeneratedAlways => "428C9",
            SqlState::InvalidTextRepresentation => "22P02",
            SqlState::UntranslatableCharacter => "22P05",
            SqlState::InvalidDatetimeFormat => "22007",
            SqlState::DatetimeFieldOverflow => "22008",
            SqlState::IntervalFieldOverflow => "22015",
            SqlState::DivisionByZero => "22012",
            SqlState::InvalidParameterValue => "22023",
            SqlState::InvalidPrecedingOrFollowingSize => "22013",
            SqlState::InvalidArgumentForNtile => "22014",
            SqlState::InvalidArgumentForNthValue => "22016",
            SqlState::InvalidRowCountInLimitClause => "2201W",
            SqlState::InvalidRowCountInResultOffsetClause => "2201X",
            SqlState::InvalidBinaryRepresentation => "22P03",
            SqlState::BadCopyFileFormat => "22P04",
            SqlState::CharacterNotInRepertoire => "22021",
            SqlState::InvalidEscapeSequence => "22025",
            SqlState::InvalidUseOfEscapeCharacter => "2200C",
            SqlState::SubstringError => "22011",
            SqlState::ArraySubscriptError => "2202E",
            SqlState::NullValueNotAllowed => "22004",
            SqlState::InvalidRegularExpression => "2201B",
            SqlState::InvalidArgumentForLogarithm => "2201E",
            SqlState::InvalidArgumentForPowerFunction => "2201F",
            SqlState::InvalidArgumentForWidthBucketFunction => "2201G",
            SqlState::NotNullViolation => "23502",
            SqlState::UniqueViolation => "23505",
            SqlState::CheckViolation => "23514",
            SqlState::ForeignKeyViolation => "23503",
            SqlState::InvalidTransactionState => "25000",
            SqlState::InFailedSqlTransaction => "25P02",
            SqlState::SyntaxError => "42601",
            SqlState::NameTooLong => "42622",
            SqlState::UndefinedColumn => "42703",
            SqlState::UndefinedTable => "42P01",
            SqlState::UndefinedFunction => "42883",
            SqlState::AmbiguousFunction => "42725",
            SqlState::UndefinedObject => "42704",
            SqlState::UndefinedParameter => "42P02",
            SqlState::DuplicateColumn => "42701",
            SqlState::DuplicateTable => "42P07",
            SqlState::DuplicateSchema => "42P06",
            SqlState::ReservedName => "42939",
            SqlState::InsufficientPrivilege => "42501",
            SqlState::DuplicateObject => "42710",
            SqlState::DuplicateAlias => "42712",
            SqlState::AmbiguousColumn => "42702",
            SqlState::DatatypeMismatch => "42804",
            SqlState::CannotCoerce => "42846",
            SqlState::GroupingError => "42803",
            SqlState::WindowingError => "42P20",
            SqlState::InvalidColumnReference => "42P10",
            SqlState::InvalidTableDefinition => "42P16",
            SqlState::InvalidForeignKey => "42830",
            SqlState::WrongObjectType => "42809",
            SqlState::InvalidSchemaName => "3F000",
            SqlState::InvalidName => "42602",
            SqlState::IndeterminateDatatype => "42P18",
            SqlState::InvalidRecursion => "42P19",
            SqlState::ProtocolViolation => "08P01",
            SqlState::InvalidPreparedStatementDefinition => "42P14",
            SqlState::DuplicatePreparedStatement => "42P05",
            SqlState::InvalidCursorName => "34000",
            SqlState::InvalidSqlStatementName => "26000",
            SqlState::SerializationFailure => "40001",
            SqlState::DeadlockDetected => "40P01",
            SqlState::LockNotAvailable => "55P03",
            SqlState::QueryCanceled => "57014",
            SqlState::ProgramLimitExceeded => "54000",
            SqlState::StatementTooComplex => "54001",
            SqlState::TooManyArguments => "54023",
            SqlState::TooManyColumns => "54011",
            SqlState::TooManyConnections => "53300",
            SqlState::InvalidAuthorizationSpecification => "28000",
            SqlState::DiskFull => "53100",
            SqlState::ObjectInUse => "55006",
            SqlState::IoError => "58030",
            SqlState::UndefinedFile => "58P01",
            SqlState::DataCorrupted => "XX001",
            SqlState::ReadOnlySqlTransaction => "25006",
            SqlState::CantChangeRuntimeParam => "55P02",
            SqlState::InternalError => "XX000",
            SqlState::StringDataLengthMismatch => "22026",
            SqlState::InvalidObjectDefinition => "42P17",
            SqlState::DependentObjectsStillExist => "2BP01",
            SqlState::IdleInTransactionSessionTimeout => "25P03",
            SqlState::IdleSessionTimeout => "57P05",
            SqlState::OutOfMemory => "53200",
            SqlState::DuplicateCursor => "42P03",
            SqlState::SqlJsonMemberNotFound => "2203A",
            SqlState::SqlJsonObjectNotFound => "2203C",
            SqlState::SqlJsonArrayNotFound => "22039",
            SqlState::SqlJsonNumberNotFound => "2203B",
            SqlState::NonNumericSqlJsonItem => "22036",
            SqlState::SingletonSqlJsonItemRequired => "22038",
            SqlState::InvalidSqlJsonSubscript => "22033",
            SqlState::UnsafeNewEnumValueUsage => "55P04",
            SqlState::InvalidGrantOperation => "0LP01",
            SqlState::InvalidPassword => "28P01",
            SqlState::WithCheckOptionViolation => "44000",
            SqlState::DuplicateFunction => "42723",
            SqlState::InvalidFunctionDefinition => "42P13",
            SqlState::InvalidCatalogName => "3D000",
            SqlState::FdwInvalidOptionName => "HV00D",
            SqlState::FdwDynamicParameterValueNeeded => "HV002",
        }
    }
}

/// An error with PostgreSQL's fields: what the client sees in an ErrorResponse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub state: SqlState,
    pub message: String,
    pub detail: Option<String>,
    pub hint: Option<String>,
    /// 1-based character position in the statement text, as PostgreSQL reports it.
    pub position: Option<u32>,
    /// Where it happened, PostgreSQL's CONTEXT field (`COPY t, line 3, column b: "x"`).
    pub context: Option<String>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(state: SqlState, message: impl Into<String>) -> Error {
        Error {
            state,
            message: message.into(),
            detail: None,
            hint: None,
            position: None,
            context: None,
        }
    }

    pub fn with_detail(mut self, detail: impl Into<String>) -> Error {
        self.detail = Some(detail.into());
        self
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Error {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_position(mut self, position: u32) -> Error {
        self.position = Some(position);
        self
    }

    pub fn with_context(mut self, context: impl Into<String>) -> Error {
        self.context = Some(context.into());
        self
    }

    /// `0A000`: SQL we parse but do not execute yet. Never answer such SQL silently.
    pub fn unsupported(what: impl fmt::Display) -> Error {
        Error::new(
            SqlState::FeatureNotSupported,
            format!("{what} is not supported yet"),
        )
    }

    /// `XX000`: a bug of ours, not the user's mistake.
    pub fn internal(message: impl Into<String>) -> Error {
        Error::new(SqlState::InternalError, message)
    }

    pub fn syntax(message: impl Into<String>) -> Error {
        Error::new(SqlState::SyntaxError, message)
    }

    pub fn out_of_range(message: impl Into<String>) -> Error {
        Error::new(SqlState::NumericValueOutOfRange, message)
    }

    pub fn division_by_zero() -> Error {
        Error::new(SqlState::DivisionByZero, "division by zero")
    }

    /// `22P02`, worded as PostgreSQL's input functions word it.
    pub fn invalid_input(type_name: &str, input: &str) -> Error {
        Error::new(
            SqlState::InvalidTextRepresentation,
            format!("invalid input syntax for type {type_name}: \"{input}\""),
        )
    }

    pub fn sqlstate(&self) -> &'static str {
        self.state.code()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (SQLSTATE {})", self.message, self.state.code())
    }
}

impl std::error::Error for Error {}
