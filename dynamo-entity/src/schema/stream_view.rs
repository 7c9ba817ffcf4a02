//! [`StreamViewType`]: what a table's stream record carries, as a table declares it.

use std::fmt;

/// What DynamoDB writes into a table's stream record for each change (the table's
/// `StreamSpecification.StreamViewType`). A stream's view type is fixed when the stream is
/// enabled: DynamoDB refuses to change it in place, so a new view type means disabling the
/// stream and enabling a new one (a new stream ARN; consumers start over on it).
///
/// ```
/// use dynamo_entity::stream::StreamViewType;
///
/// assert_eq!(StreamViewType::NewAndOldImages.as_str(), "NEW_AND_OLD_IMAGES");
/// assert_eq!(StreamViewType::parse("KEYS_ONLY"), Some(StreamViewType::KeysOnly));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StreamViewType {
    /// `KEYS_ONLY`: only the item's key attributes; [`Change`](crate::stream::Change) then
    /// has neither image.
    KeysOnly,
    /// `NEW_IMAGE`: the item as it is after the change.
    NewImage,
    /// `OLD_IMAGE`: the item as it was before the change.
    OldImage,
    /// `NEW_AND_OLD_IMAGES`: both.
    NewAndOldImages,
}

impl StreamViewType {
    /// The name DynamoDB uses, such as `NEW_AND_OLD_IMAGES`.
    pub fn as_str(self) -> &'static str {
        match self {
            StreamViewType::KeysOnly => "KEYS_ONLY",
            StreamViewType::NewImage => "NEW_IMAGE",
            StreamViewType::OldImage => "OLD_IMAGE",
            StreamViewType::NewAndOldImages => "NEW_AND_OLD_IMAGES",
        }
    }

    /// The view type DynamoDB names `name` (`KEYS_ONLY`, `NEW_IMAGE`, `OLD_IMAGE` or
    /// `NEW_AND_OLD_IMAGES`); `None` for any other name.
    pub fn parse(name: &str) -> Option<StreamViewType> {
        [StreamViewType::KeysOnly, StreamViewType::NewImage, StreamViewType::OldImage, StreamViewType::NewAndOldImages]
            .into_iter()
            .find(|v| v.as_str() == name)
    }

    /// The SDK's view type, for a `StreamSpecification`.
    pub(crate) fn to_sdk(self) -> aws_sdk_dynamodb::types::StreamViewType {
        aws_sdk_dynamodb::types::StreamViewType::from(self.as_str())
    }
}

impl fmt::Display for StreamViewType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
