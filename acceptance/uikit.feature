Feature: UIkit's form test page
  Every kind of form control the framework styles.

  Background:
    Given I open 'uikit@3.25.29/package/tests/form.html' in the browser

  Scenario: Text into the stacked form
    When I type 'Hello UIkit' into the 'Text' field
    Then the 'Text' field should contain the text 'Hello UIkit'

  Scenario: A radio option
    When I click the 'Option 02' radio
    Then I should see 'Option 02'

  Scenario: A text area
    When I type 'line one' into the 'Textarea' field
    Then I should see 'line one'

  Scenario: The page's headings
    Then I should see 'Select'
    And I should see the 'Submit' button

  Scenario: A checkbox option
    When I click the first 'Option 01' checkbox
    Then I should see 'Option 01'
