/**
 * The batch group keeps upstream's bare name `batch` (it never carried the product domain), as
 * apps does: stock clients address it by that fixed path (kubectl create job / cronjob).
 */
export const BATCH_GROUP = 'batch';
