//! The wire target: tokio-postgres's simple query protocol against any PostgreSQL-speaking
//! server — a `kestrel serve` process or a real PostgreSQL. The simple protocol returns every
//! value in text format, exactly what the expected output holds.

use std::time::Duration;

use sqllogictest::{AsyncDB, DBOutput, DefaultColumnType};
use tokio::task::JoinHandle;
use tokio_postgres::{Client, Config, NoTls, SimpleQueryMessage};

use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};

use crate::copy::{copy_out_rows, copy_request, CopyRequest};
use crate::format::{cell, last_output, SqlError, StatementOutput};

/// Longer than any statement of the corpus should take; a hung server fails the record
/// instead of hanging the test run.
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(60);

/// One client connection.
pub struct WireDb {
    client: Client,
    connection: JoinHandle<()>,
    config: Config,
}

impl WireDb {
    /// Connects; must be called inside a tokio runtime, which drives the connection.
    pub async fn connect(config: &Config) -> Result<WireDb, SqlError> {
        let (client, connection) = config.connect(NoTls).await?;
        let connection = tokio::spawn(async move {
            // A broken connection shows up as the error of the next statement.
            let _ = connection.await;
        });
        Ok(WireDb {
            client,
            connection,
            config: config.clone(),
        })
    }

    /// Runs `sql` and returns each statement's output.
    pub async fn simple_query(&self, sql: &str) -> Result<Vec<StatementOutput>, SqlError> {
        let messages = tokio::time::timeout(STATEMENT_TIMEOUT, self.client.simple_query(sql))
            .await
            .map_err(|_| SqlError {
                message: format!("no answer within {}s", STATEMENT_TIMEOUT.as_secs()),
                sqlstate: None,
            })??;
        let mut outputs = Vec::new();
        let mut rows: Option<(usize, Vec<Vec<String>>)> = None;
        for message in messages {
            match message {
                SimpleQueryMessage::RowDescription(columns) => {
                    rows = Some((columns.len(), Vec::new()));
                }
                SimpleQueryMessage::Row(row) => {
                    let values = (0..row.len()).map(|i| cell(row.get(i))).collect();
                    match &mut rows {
                        Some((_, rows)) => rows.push(values),
                        None => rows = Some((row.len(), vec![values])),
                    }
                }
                SimpleQueryMessage::CommandComplete(count) => {
                    outputs.push(match rows.take() {
                        Some((column_count, rows)) => StatementOutput::Rows { column_count, rows },
                        None => StatementOutput::Count(count),
                    });
                }
                // The enum is non_exhaustive; a new message kind carries no result rows.
                _ => {}
            }
        }
        Ok(outputs)
    }
}

impl WireDb {
    /// COPY FROM STDIN with the record's data, or COPY TO STDOUT.
    async fn copy(&self, request: CopyRequest<'_>) -> Result<Vec<StatementOutput>, SqlError> {
        match request {
            CopyRequest::In { statement, data } => {
                let sink = self.client.copy_in::<_, Bytes>(statement).await?;
                let mut sink = std::pin::pin!(sink);
                if !data.is_empty() {
                    sink.send(Bytes::copy_from_slice(data.as_bytes())).await?;
                }
                let count = sink.as_mut().finish().await?;
                Ok(vec![StatementOutput::Count(count)])
            }
            CopyRequest::Out { statement } => {
                let stream = self.client.copy_out(statement).await?;
                let mut stream = std::pin::pin!(stream);
                let mut data = Vec::new();
                while let Some(chunk) = stream.next().await {
                    data.extend_from_slice(&chunk?);
                }
                Ok(vec![copy_out_rows(&data)])
            }
        }
    }
}

#[async_trait::async_trait]
impl AsyncDB for WireDb {
    type Error = SqlError;
    type ColumnType = DefaultColumnType;

    async fn run(&mut self, sql: &str) -> Result<DBOutput<DefaultColumnType>, SqlError> {
        let output = match copy_request(sql) {
            Some(request) => {
                let outcome = tokio::time::timeout(STATEMENT_TIMEOUT, self.copy(request))
                    .await
                    .map_err(|_| SqlError {
                        message: format!("no answer within {}s", STATEMENT_TIMEOUT.as_secs()),
                        sqlstate: None,
                    })?;
                if outcome.is_err() {
                    // tokio-postgres loses track of the connection after a COPY that fails
                    // (the next request reads the failed one's last message): go on with a
                    // new connection to the same database.
                    self.connection.abort();
                    *self = WireDb::connect(&self.config).await?;
                }
                outcome?
            }
            None => self.simple_query(sql).await?,
        };
        Ok(last_output(output))
    }

    async fn shutdown(&mut self) {
        self.connection.abort();
    }

    async fn sleep(dur: Duration) {
        tokio::time::sleep(dur).await;
    }

    fn error_sql_state(err: &SqlError) -> Option<String> {
        err.sqlstate.clone()
    }
}
